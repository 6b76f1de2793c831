/**
 * The send side of the guard (issue 5), in the ISOLATED world: the MAIN
 * world's send hook (src/page/outgoing-hook.ts) hands over each request a
 * request adapter recognises, with the body the page would send, and waits
 * for the verdict: the guarded body to send instead, or a refusal.
 *
 * The request is recognised again here (nothing from the page is trusted), the
 * body goes through outgoing-request-guard.ts (paste envelopes, DLP, the
 * person's confirmation, history projection) once the page config is there,
 * and what happened is reported like an answer stream (direction `out`).
 * The marks lookup and the confirmation are answered by the bridge's outgoing
 * part (outgoing-bridge.ts) through `ask`/`receive`: an answer that never
 * comes leaves the lookup empty after LOOKUP_TIMEOUT_MS (no marks: DLP and
 * projection still run) but holds a confirmation for as long as the person
 * takes (a send is never released by time alone).
 *
 * Fail closed: a request that is not recognised here, a config that never
 * comes, or any failure refuses the send.
 *
 * No extension APIs here.
 */
import type { OutgoingFinding } from '../core/outgoing/outgoing-dlp.ts';
import { detectRequestAdapter } from '../core/wire/requests/request-registry.ts';
import type { OutgoingRequest } from '../core/wire/requests/request-text.ts';
import type { GuardAnswer, GuardReport, PageGuardEvent } from '../protocol/guard-reports.ts';
import {
  type OutgoingMarks,
  type OutgoingOutcome,
  type OutgoingSetup,
  type SendDecision,
  guardOutgoingRequestBody,
} from './outgoing-request-guard.ts';

export const LOOKUP_TIMEOUT_MS = 3_000;

export interface RequestHostDeps {
  setup(): OutgoingSetup;
  /** Resolves once `setup` can answer; a request waits for it, and is refused when it rejects. */
  ready(): Promise<unknown>;
  /**
   * Resolves once `setup` answers warm (OutgoingSetup.warm), which a request whose
   * texts hold a keyword waits for; rejects when it never will.
   */
  warm(): Promise<unknown>;
  /** Reports (guard events, stream end) for the notices and the background. */
  report(message: GuardReport): void;
  /** The bridge's outgoing part: marks lookups and confirmations (answered through `receive`). */
  ask(message: GuardReport): void;
  newId(): string;
  setTimeout(callback: () => void, ms: number): unknown;
  /** Paces the scan of a request (OutgoingGuardDeps.pace). */
  pace?(): Promise<void> | undefined;
  /**
   * Issue 20: whether this site refused a request the guard rewrote before
   * (rewrite-refusal-memory.ts); its sends are then asked about, not rewritten.
   */
  rewritesRefused?(): Promise<boolean>;
}

export interface RequestHost {
  guard(request: OutgoingRequest, body: string): Promise<OutgoingOutcome>;
  /** Takes the answers to `ask` (`outgoing-lookup-result`, `send-decision`). */
  receive(answer: GuardAnswer): void;
}

export function createRequestHost(deps: RequestHostDeps): RequestHost {
  const lookups = new Map<string, (marks: OutgoingMarks) => void>();
  const decisions = new Map<string, (decision: SendDecision) => void>();

  const lookup = (texts: string[], history: string[]): Promise<OutgoingMarks> => {
    const requestId = deps.newId();
    return new Promise((resolve) => {
      lookups.set(requestId, resolve);
      deps.setTimeout(() => {
        if (lookups.delete(requestId)) resolve({ pasted: [], referenceOnly: [] });
      }, LOOKUP_TIMEOUT_MS);
      deps.ask({ v: 1, type: 'outgoing-lookup', requestId, texts, history });
    });
  };

  const confirm = (findings: readonly OutgoingFinding[], bound = false): Promise<SendDecision> => {
    const requestId = deps.newId();
    return new Promise((resolve) => {
      decisions.set(requestId, resolve);
      deps.ask({
        v: 1,
        type: 'confirm-send',
        requestId,
        findings: findings.map((f) => ({ rule: f.rule, kind: f.kind, matched: f.text })),
        ...(bound ? { bound } : {}),
      });
    });
  };

  const guard = async (request: OutgoingRequest, body: string): Promise<OutgoingOutcome> => {
    const streamId = deps.newId();
    let reported = false;
    const report = (format: string, events: PageGuardEvent[]) => {
      reported = true;
      deps.report({
        v: 1,
        type: 'guard-events',
        stream: { streamId, direction: 'out', format, conversationId: '', turnId: '' },
        events,
      });
    };
    const adapter = detectRequestAdapter(request);
    let outcome: OutgoingOutcome;
    if (adapter === undefined) {
      report('unrecognised', [
        { type: 'error', message: 'request not recognised', at: 0, pack: 'outgoing' },
      ]);
      outcome = { send: false, reason: 'failed' };
    } else {
      try {
        await deps.ready();
        // Unreadable memory: the usual protection (rewriting) applies.
        const askInstead =
          deps.rewritesRefused !== undefined && (await deps.rewritesRefused().catch(() => false));
        outcome = await guardOutgoingRequestBody(adapter, body, {
          askInstead,
          setup: deps.setup,
          warmSetup: async () => {
            await deps.warm();
            return deps.setup();
          },
          lookup,
          confirm,
          ...(deps.pace === undefined ? {} : { pace: deps.pace }),
          report,
        });
      } catch {
        report(adapter.name, [
          { type: 'error', message: 'no guard setup', at: 0, pack: 'outgoing' },
        ]);
        outcome = { send: false, reason: 'failed' };
      }
    }
    if (reported) {
      const end = outcome.send ? 'complete' : outcome.reason === 'failed' ? 'failed' : 'blocked';
      deps.report({ v: 1, type: 'stream-end', streamId, outcome: end });
    }
    return outcome;
  };

  return {
    guard,
    receive(answer) {
      if (answer.type === 'outgoing-lookup-result') {
        const resolve = lookups.get(answer.requestId);
        if (resolve === undefined) return;
        lookups.delete(answer.requestId);
        resolve({ pasted: answer.pasted, referenceOnly: answer.referenceOnly });
      } else {
        const resolve = decisions.get(answer.requestId);
        if (resolve === undefined) return;
        decisions.delete(answer.requestId);
        resolve(answer.decision);
      }
    },
  };
}
