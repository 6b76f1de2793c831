/**
 * The bridge's side of runtime messaging with the background
 * (src/protocol/runtime-messages.ts ContentToBackground). The background checks
 * the sender and answers only what the page may know. When it does not answer
 * (not built yet, restarting, an error), the bridge carries on with defaults;
 * without a compiled pack the MAIN world's guarded streams wait (and never pass
 * unguarded, src/page/page-guard-config.ts).
 */
import type {
  ContentToBackground,
  OpenPopupAnswer,
  PageConfigAnswer,
  PagePackAnswer,
} from '../protocol/runtime-messages.ts';

export type SendToBackground = (message: ContentToBackground) => Promise<unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export interface BackgroundLink {
  /** Fire-and-forget report (guard events, holding, stream end, wire issue). */
  report(message: ContentToBackground): void;
  /** The page config of this site, or undefined when the background gave none. */
  pageConfig(): Promise<PageConfigAnswer | undefined>;
  /** The site's packs compiled by the background, or undefined when it gave none. */
  pagePack(): Promise<PagePackAnswer | undefined>;
  /** True when the background opened the popup. */
  openPopup(): Promise<boolean>;
}

export function createBackgroundLink(send: SendToBackground): BackgroundLink {
  return {
    report(message) {
      send(message).catch(() => undefined);
    },
    async pageConfig() {
      try {
        const answer = await send({ to: 'background', type: 'page-config' });
        // The background is ours (runtime messaging); the compiled pack is still loaded
        // defensively (page-guard-config.ts, load-compiled-pack.ts).
        if (isRecord(answer) && typeof answer.enabled === 'boolean' && isRecord(answer.config)) {
          return answer as unknown as PageConfigAnswer;
        }
      } catch {
        // No background answer: the guard fails closed (bridge.ts).
      }
      return undefined;
    },
    async pagePack() {
      try {
        const answer = await send({ to: 'background', type: 'page-pack' });
        // The guard checks the shape and loads it defensively (load-compiled-pack.ts).
        if (isRecord(answer) && isRecord(answer.compiled))
          return answer as unknown as PagePackAnswer;
      } catch {
        // No background answer: the guard fails closed (bridge.ts).
      }
      return undefined;
    },
    async openPopup() {
      try {
        const answer = (await send({ to: 'background', type: 'open-popup' })) as
          OpenPopupAnswer | undefined;
        return isRecord(answer) && answer.opened === true;
      } catch {
        return false;
      }
    },
  };
}
