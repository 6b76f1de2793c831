/**
 * Reference-only marks that survive a reload (issue 5 §3), kept by the
 * background in `storage.local` (docs/settings.md "Reference-only marks").
 *
 * What is stored is keyed digests only, never text and never the URL:
 * - `referenceOnlyKey`: a per-install random key (32 bytes, hex), separate from
 *   the audit key so the two digests can never be compared.
 * - `referenceOnly:<site>`: `{ v: 1, conversations: { <digest>: { time, marks } } }`,
 *   where `<digest>` is HMAC(site key, "conversation\0" + path and query) and each
 *   mark is a position plus HMAC(site key, message text) digests
 *   (`StoredReferenceMark`).
 *
 * The site key is HMAC(install key, "csg reference-only v1\0" + site): the bridge
 * of a site gets ITS key (to digest message texts where they are, in the ISOLATED
 * world) and never another site's, and a digest made on one site means nothing on
 * another. The site always comes from the checked sender, never from the message.
 *
 * Bounded: at most `MAX_CONVERSATIONS` conversations per site (the least recently
 * changed go first) and `MAX_MARKS` marks per conversation; an empty list removes
 * the conversation.
 */
import {
  type ReferenceOnlyLoadAnswer,
  type StoredReferenceMark,
  isStoredReferenceMark,
} from '../protocol/runtime-messages.ts';
import type { SettingsStorage } from './settings.ts';

export const REFERENCE_ONLY_KEY_STORAGE_KEY = 'referenceOnlyKey';
export const REFERENCE_ONLY_STORAGE_PREFIX = 'referenceOnly:';
export const MAX_CONVERSATIONS = 100;
export const MAX_MARKS = 200;
export const MAX_CONVERSATION_LENGTH = 2048;

const KEY_HEX = /^[0-9a-f]{64}$/;

interface StoredConversation {
  time: number;
  marks: StoredReferenceMark[];
}

interface StoredSite {
  v: 1;
  conversations: Record<string, StoredConversation>;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

async function hmac(keyHex: string, text: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    'raw',
    fromHex(keyHex),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text)));
}

/** A list of marks as the bridge may send it (bounded, every field checked). */
export function isStoredMarkList(value: unknown): value is StoredReferenceMark[] {
  return Array.isArray(value) && value.length <= MAX_MARKS && value.every(isStoredReferenceMark);
}

/** What is stored for a site, repaired: anything malformed is dropped, not trusted. */
function readSite(value: unknown): StoredSite {
  const site: StoredSite = { v: 1, conversations: {} };
  const stored = value as { v?: unknown; conversations?: unknown } | null;
  if (typeof stored !== 'object' || stored === null || stored.v !== 1) return site;
  const conversations = stored.conversations;
  if (typeof conversations !== 'object' || conversations === null) return site;
  for (const [id, entry] of Object.entries(conversations as Record<string, unknown>)) {
    const c = entry as Partial<StoredConversation> | null;
    if (!KEY_HEX.test(id) || typeof c !== 'object' || c === null) continue;
    if (typeof c.time !== 'number' || !isStoredMarkList(c.marks)) continue;
    site.conversations[id] = { time: c.time, marks: c.marks };
  }
  return site;
}

export class ReferenceOnlyStore {
  private installKey: Promise<string> | undefined;
  private readonly siteKeys = new Map<string, Promise<string>>();
  /** One write at a time, so concurrent saves of one site never lose each other. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: SettingsStorage,
    private readonly now: () => number = Date.now,
  ) {}

  private loadInstallKey(): Promise<string> {
    this.installKey ??= (async () => {
      const stored = (await this.storage.get(REFERENCE_ONLY_KEY_STORAGE_KEY))[
        REFERENCE_ONLY_KEY_STORAGE_KEY
      ];
      if (typeof stored === 'string' && KEY_HEX.test(stored)) return stored;
      const key = toHex(crypto.getRandomValues(new Uint8Array(32)));
      await this.storage.set({ [REFERENCE_ONLY_KEY_STORAGE_KEY]: key });
      return key;
    })();
    // A failed load is retried next time instead of failing forever.
    this.installKey.catch(() => {
      this.installKey = undefined;
    });
    return this.installKey;
  }

  /** The site's key (hex, 32 bytes): what the site's bridge digests message texts with. */
  siteKey(site: string): Promise<string> {
    let key = this.siteKeys.get(site);
    if (key === undefined) {
      key = this.loadInstallKey().then(async (install) =>
        toHex(await hmac(install, `csg reference-only v1\0${site}`)),
      );
      // Only a derived key is kept; a failure is retried next time.
      key.catch(() => this.siteKeys.delete(site));
      this.siteKeys.set(site, key);
    }
    return key;
  }

  private async conversationId(site: string, conversation: string): Promise<string> {
    return toHex(await hmac(await this.siteKey(site), `conversation\0${conversation}`));
  }

  private async readSite(site: string): Promise<StoredSite> {
    const key = REFERENCE_ONLY_STORAGE_PREFIX + site;
    return readSite((await this.storage.get(key))[key]);
  }

  async load(site: string, conversation: string): Promise<ReferenceOnlyLoadAnswer> {
    await this.queue.catch(() => undefined);
    const [key, id, stored] = await Promise.all([
      this.siteKey(site),
      this.conversationId(site, conversation),
      this.readSite(site),
    ]);
    return { key, marks: stored.conversations[id]?.marks ?? [] };
  }

  save(site: string, conversation: string, marks: readonly StoredReferenceMark[]): Promise<void> {
    const write = this.queue
      .catch(() => undefined)
      .then(async () => {
        const id = await this.conversationId(site, conversation);
        const stored = await this.readSite(site);
        if (marks.length === 0) delete stored.conversations[id];
        else stored.conversations[id] = { time: this.now(), marks: [...marks] };
        const ids = Object.keys(stored.conversations);
        if (ids.length > MAX_CONVERSATIONS) {
          ids.sort(
            (a, b) => (stored.conversations[a]?.time ?? 0) - (stored.conversations[b]?.time ?? 0),
          );
          for (const old of ids.slice(0, ids.length - MAX_CONVERSATIONS)) {
            delete stored.conversations[old];
          }
        }
        await this.storage.set({ [REFERENCE_ONLY_STORAGE_PREFIX + site]: stored });
      });
    this.queue = write;
    return write;
  }
}
