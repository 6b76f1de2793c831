/**
 * Issue 20 §1: this site's entry in the remembered rewrite refusals
 * (protocol/rewrite-refusals.ts): read before each send (so a reset in the popup
 * applies to the next one), written when the site refuses a rewritten request.
 * The storage area is injected (`browser.storage.local` in guard-engine.ts) so
 * this is testable with a fake.
 */
import {
  REWRITE_REFUSALS_KEY,
  type RewriteRefusalRecord,
  parseRewriteRefusals,
  withRewriteRefusal,
} from '../protocol/rewrite-refusals.ts';

export interface RefusalStorage {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

export interface RewriteRefusalMemory {
  /** Whether `site` refused a rewritten request (and was not reset since). */
  refuses(): Promise<boolean>;
  /** Remembers that `site` refused one. */
  remember(record: RewriteRefusalRecord): Promise<void>;
}

export function createRewriteRefusalMemory(
  storage: RefusalStorage,
  site: string,
): RewriteRefusalMemory {
  const read = async () =>
    parseRewriteRefusals((await storage.get(REWRITE_REFUSALS_KEY))[REWRITE_REFUSALS_KEY]);
  return {
    refuses: async () => Object.hasOwn(await read(), site),
    async remember(record) {
      const next = withRewriteRefusal(await read(), site, record);
      await storage.set({ [REWRITE_REFUSALS_KEY]: next });
    },
  };
}
