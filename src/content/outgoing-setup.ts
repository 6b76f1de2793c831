/**
 * What a request is guarded with on send (issue 5): the pack the answers use
 * (page-guard-config.ts, so disabled rules and custom packs apply both ways),
 * the outgoing policy and envelope renderer of the page config, and the
 * source-label pack for history projection, both compiled by the background.
 * Until the bridge's config arrives there is no setup: the outgoing hook waits
 * for `guardConfig.readyLoadedForRequests()` first (request-host.ts), and a request that cannot
 * get one is refused (fail closed), never sent unguarded.
 *
 * No extension APIs here.
 */
import { DEFAULT_OUTGOING_POLICY } from '../core/outgoing/outgoing-policy.ts';
import type { PageConfig } from '../protocol/settings-schema.ts';
import type { OutgoingSetup } from './outgoing-request-guard.ts';
import { type PageGuardConfig, PageConfigUnavailableError } from './page-guard-config.ts';

export interface OutgoingSettings {
  current(): OutgoingSetup;
  apply(config: PageConfig): void;
}

export function createOutgoingSettings(guardConfig: PageGuardConfig): OutgoingSettings {
  let policy: OutgoingSetup['policy'] = { ...DEFAULT_OUTGOING_POLICY };
  let renderer: OutgoingSetup['renderer'] = 'json';
  return {
    current() {
      const warm = guardConfig.currentForRequests();
      const setup = warm ?? guardConfig.loadedForRequests();
      if (setup === undefined) throw new PageConfigUnavailableError('no page config yet');
      return {
        pack: setup.pack,
        warm: warm !== undefined,
        policy,
        renderer,
        labels: () => setup.labels,
      };
    },
    apply(config) {
      policy = { ...config.outgoing };
      renderer = config.envelopeRenderer;
    },
  };
}
