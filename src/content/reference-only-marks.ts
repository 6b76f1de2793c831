/**
 * Messages the person marked "reference only" (issue 5 §3), per conversation,
 * by keyed digest: the bridge keeps HMAC-SHA-256 digests of message texts,
 * never the texts, and the key never leaves the ISOLATED world (the MAIN world
 * sends the request's message texts and gets back indices: outgoing-lookup).
 *
 * A mark is made on a rendered message (its position in the conversation and
 * its shown text). What the page SENDS for it may differ from what it shows
 * (an assistant answer is Markdown in the request, rendered HTML on screen),
 * so a mark is held by position until the next request of that conversation,
 * where it is bound to the digest of the text at that position; from then on
 * the digest decides, wherever the message moves in the list.
 *
 * Surviving a reload: with a `MarksStore` (reference-only-session.ts), the
 * digests are made with the site's key from the background and every change is
 * saved through the background (positions and digests, never text); a
 * conversation's stored marks are loaded the first time it is touched. Without
 * one (or when the background does not answer), the key is made per page load
 * and the marks live as long as the page.
 *
 * A conversation is the page's path and query (the mock chat and most chat UIs
 * put the conversation id in the URL).
 */

import type { StoredReferenceMark } from '../protocol/runtime-messages.ts';

export type Digest = (text: string) => Promise<string>;

/** Where a conversation's marks are kept between page loads (through the background). */
export interface MarksStore {
  load(conversation: string): Promise<readonly StoredReferenceMark[]>;
  save(conversation: string, marks: StoredReferenceMark[]): void;
}

interface ConversationMarks {
  /** Positions marked and not yet bound to a sent text. */
  pending: Set<number>;
  /** Position → digests bound to it (the shown text and the sent text). */
  bound: Map<number, Set<string>>;
  /** Resolves once the stored marks are merged in (at once without a store). */
  loaded: Promise<void>;
  /** Positions the person changed before the stored marks arrived: their choice wins. */
  touched: Set<number>;
}

export class ReferenceOnlyMarks {
  private readonly conversations = new Map<string, ConversationMarks>();
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly digest: Digest,
    private readonly store?: MarksStore,
  ) {}

  /** Called when stored marks arrive for a conversation (controls refresh). */
  onLoaded(listener: () => void): void {
    this.listeners.add(listener);
  }

  private marksOf(conversation: string): ConversationMarks {
    let marks = this.conversations.get(conversation);
    if (marks === undefined) {
      const made: ConversationMarks = {
        pending: new Set(),
        bound: new Map(),
        loaded: Promise.resolve(),
        touched: new Set(),
      };
      if (this.store !== undefined) made.loaded = this.restore(conversation, made, this.store);
      this.conversations.set(conversation, made);
      marks = made;
    }
    return marks;
  }

  private async restore(
    conversation: string,
    marks: ConversationMarks,
    store: MarksStore,
  ): Promise<void> {
    const stored = await store.load(conversation).catch(() => []);
    for (const mark of stored) {
      if (marks.touched.has(mark.position)) continue;
      marks.bound.set(mark.position, new Set(mark.digests));
      if (mark.pending) marks.pending.add(mark.position);
    }
    marks.touched.clear();
    if (stored.length > 0) for (const listener of this.listeners) listener();
  }

  /** The marks of `conversation` as stored: positions and digests only. */
  snapshot(conversation: string): StoredReferenceMark[] {
    const marks = this.conversations.get(conversation);
    if (marks === undefined) return [];
    return [...marks.bound].map(([position, digests]) => ({
      position,
      digests: [...digests],
      pending: marks.pending.has(position),
    }));
  }

  private save(conversation: string): void {
    this.store?.save(conversation, this.snapshot(conversation));
  }

  /** Resolves once the stored marks of `conversation` are in (starts loading them). */
  ready(conversation: string): Promise<void> {
    return this.marksOf(conversation).loaded;
  }

  isMarked(conversation: string, index: number): boolean {
    const marks = this.marksOf(conversation);
    return marks.pending.has(index) || marks.bound.has(index);
  }

  /** Marks (or unmarks) the message at `index` whose shown text is `shown`. */
  async set(conversation: string, index: number, shown: string, marked: boolean): Promise<void> {
    const marks = this.marksOf(conversation);
    marks.touched.add(index);
    if (!marked) {
      marks.pending.delete(index);
      marks.bound.delete(index);
      await marks.loaded;
      this.save(conversation);
      return;
    }
    // Recorded before the digest is ready, so the control shows the mark at once.
    const digests = new Set<string>();
    marks.bound.set(index, digests);
    marks.pending.add(index);
    try {
      if (shown !== '') digests.add(await this.digest(shown));
    } catch (error) {
      // A mark that could not be made is not shown as made (the request would carry it).
      if (marks.bound.get(index) === digests) {
        marks.bound.delete(index);
        marks.pending.delete(index);
      }
      throw error;
    }
    await marks.loaded;
    this.save(conversation);
  }

  /** Indices of `history` (a request's message texts) that are reference-only. */
  async lookup(conversation: string, history: readonly string[]): Promise<number[]> {
    const marks = this.marksOf(conversation);
    await marks.loaded;
    if (history.length === 0 || marks.bound.size === 0) return [];
    const digests = await Promise.all(history.map((text) => this.digest(text)));
    const binding = marks.pending.size > 0;
    for (const index of marks.pending) {
      const sent = digests[index];
      if (sent !== undefined) marks.bound.get(index)?.add(sent);
    }
    marks.pending.clear();
    if (binding) this.save(conversation);
    const marked = new Set<string>();
    for (const set of marks.bound.values()) for (const d of set) marked.add(d);
    return digests.flatMap((d, i) => (marked.has(d) ? [i] : []));
  }
}

/** HMAC-SHA-256 with a fresh non-extractable key, hex. */
export async function createPageDigest(subtle: SubtleCrypto): Promise<Digest> {
  const key = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const encoder = new TextEncoder();
  return async (text) => {
    const mac = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(text)));
    return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
  };
}

/** Stored digests are 16 bytes: enough against collisions, half the storage. */
const KEYED_DIGEST_BYTES = 16;

/**
 * HMAC-SHA-256 with the site's reference-only key from the background (hex, imported
 * non-extractable), hex, truncated to 16 bytes: the same text gives the same digest
 * after a reload, so stored marks still apply.
 */
export async function createKeyedDigest(subtle: SubtleCrypto, keyHex: string): Promise<Digest> {
  if (!/^[0-9a-f]{64}$/.test(keyHex)) throw new Error('reference-only key has the wrong shape');
  const raw = new Uint8Array(32);
  for (let i = 0; i < raw.length; i += 1) raw[i] = parseInt(keyHex.slice(2 * i, 2 * i + 2), 16);
  const key = await subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const encoder = new TextEncoder();
  return async (text) => {
    const mac = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(text)));
    // Not `mac.subarray`: in a Firefox content script the buffer belongs to the page's
    // compartment, and the species lookup behind subarray/slice throws "Permission
    // denied to access property constructor" (Xray wrappers). Array.from reads it fine.
    return Array.from(mac, (b) => b.toString(16).padStart(2, '0'))
      .slice(0, KEYED_DIGEST_BYTES)
      .join('');
  };
}
