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
 * Trade-off: the key is made per page load (non-extractable, in memory) and
 * the marks live as long as the page; they do not survive a reload. Persisting
 * them would need a background-held key and per-conversation storage.
 *
 * A conversation is the page's path and query (the mock chat and most chat UIs
 * put the conversation id in the URL).
 */

export type Digest = (text: string) => Promise<string>;

interface ConversationMarks {
  /** Positions marked and not yet bound to a sent text. */
  pending: Set<number>;
  /** Position → digests bound to it (the shown text and the sent text). */
  bound: Map<number, Set<string>>;
}

export class ReferenceOnlyMarks {
  private readonly conversations = new Map<string, ConversationMarks>();

  constructor(private readonly digest: Digest) {}

  private marksOf(conversation: string): ConversationMarks {
    let marks = this.conversations.get(conversation);
    if (marks === undefined) {
      marks = { pending: new Set(), bound: new Map() };
      this.conversations.set(conversation, marks);
    }
    return marks;
  }

  isMarked(conversation: string, index: number): boolean {
    const marks = this.conversations.get(conversation);
    return marks !== undefined && (marks.pending.has(index) || marks.bound.has(index));
  }

  /** Marks (or unmarks) the message at `index` whose shown text is `shown`. */
  async set(conversation: string, index: number, shown: string, marked: boolean): Promise<void> {
    const marks = this.marksOf(conversation);
    if (!marked) {
      marks.pending.delete(index);
      marks.bound.delete(index);
      return;
    }
    // Recorded before the digest is ready, so the control shows the mark at once.
    const digests = new Set<string>();
    marks.bound.set(index, digests);
    marks.pending.add(index);
    if (shown !== '') digests.add(await this.digest(shown));
  }

  /** Indices of `history` (a request's message texts) that are reference-only. */
  async lookup(conversation: string, history: readonly string[]): Promise<number[]> {
    const marks = this.conversations.get(conversation);
    if (marks === undefined || history.length === 0) return [];
    const digests = await Promise.all(history.map((text) => this.digest(text)));
    for (const index of marks.pending) {
      const sent = digests[index];
      if (sent !== undefined) marks.bound.get(index)?.add(sent);
    }
    marks.pending.clear();
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
