/**
 * Where each entry's `response.content.text` and `response.content.size` sit in
 * the text of a HAR file, found in one pass, so `csg replay` can replace just
 * those values and keep every other byte of the file (key order, indentation,
 * escapes, base64 bodies of other entries) as DevTools wrote it.
 *
 * The text must already be valid JSON (the caller parsed it first); values off
 * the wanted paths are skipped without being decoded.
 */

export interface ValueSpan {
  start: number;
  end: number;
}

export interface ContentSpans {
  text?: ValueSpan;
  size?: ValueSpan;
  /** The entry's `_webSocketMessages` array (a DevTools WebSocket entry). */
  socket?: ValueSpan;
}

/** The path below `log.entries[i]` that leads to the content fields. */
const CONTENT_PATH = ['response', 'content'] as const;

class HarScanner {
  private i = 0;
  readonly found = new Map<number, ContentSpans>();

  constructor(private readonly s: string) {}

  scan(): Map<number, ContentSpans> {
    if (this.s.charCodeAt(0) === 0xfeff) this.i = 1;
    this.ws();
    this.object((key) => (key === 'log' ? () => this.logObject() : null));
    return this.found;
  }

  private logObject(): void {
    this.object((key) => (key === 'entries' ? () => this.entries() : null));
  }

  private entries(): void {
    if (this.s[this.i] !== '[') return this.skip();
    this.array((index) => () => this.entry(index, 0));
  }

  /** Descends `response` → `content` of entry `index`, then records `text` and `size`. */
  private entry(index: number, depth: number): void {
    if (this.s[this.i] !== '{') return this.skip();
    if (depth === CONTENT_PATH.length) {
      this.object((key) => {
        if (key !== 'text' && key !== 'size') return null;
        return () => this.record(index, key);
      });
      return;
    }
    this.object((key) => {
      if (key === CONTENT_PATH[depth]) return () => this.entry(index, depth + 1);
      if (depth === 0 && key === '_webSocketMessages') return () => this.record(index, 'socket');
      return null;
    });
  }

  /** Records where the value at the cursor starts and ends, as `key` of entry `index`. */
  private record(index: number, key: keyof ContentSpans): void {
    const start = this.i;
    this.skip();
    const spans = this.found.get(index) ?? {};
    spans[key] = { start, end: this.i };
    this.found.set(index, spans);
  }

  /** Reads an object; `member(key)` returns how to read that member's value, or null to skip it. */
  private object(member: (key: string) => (() => void) | null): void {
    if (this.s[this.i] !== '{') return this.skip();
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      const key = this.string();
      this.ws();
      this.i++; // ':'
      this.ws();
      const read = member(key);
      if (read === null) this.skip();
      else read();
      this.ws();
      if (this.s[this.i++] === '}') return;
    }
  }

  private array(element: (index: number) => () => void): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return;
    }
    for (let index = 0; ; index++) {
      this.ws();
      element(index)();
      this.ws();
      if (this.s[this.i++] === ']') return;
    }
  }

  private string(): string {
    const start = this.i;
    this.skipString();
    return JSON.parse(this.s.slice(start, this.i)) as string;
  }

  private skipString(): void {
    let j = this.i + 1;
    for (;;) {
      const quote = this.s.indexOf('"', j);
      if (quote === -1) throw new SyntaxError('unterminated string');
      let backslashes = 0;
      for (let k = quote - 1; this.s.charCodeAt(k) === 0x5c; k--) backslashes++;
      j = quote + 1;
      if (backslashes % 2 === 0) break;
    }
    this.i = j;
  }

  /** Skips one value of any kind. */
  private skip(): void {
    const c = this.s[this.i];
    if (c === '"') return this.skipString();
    if (c !== '{' && c !== '[') {
      while (this.i < this.s.length && !/[,}\]\s]/.test(this.s[this.i] as string)) this.i++;
      return;
    }
    let depth = 0;
    while (this.i < this.s.length) {
      const d = this.s[this.i];
      if (d === '"') {
        this.skipString();
        continue;
      }
      this.i++;
      if (d === '{' || d === '[') depth++;
      else if ((d === '}' || d === ']') && --depth === 0) return;
    }
  }

  private ws(): void {
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else return;
    }
  }
}

/**
 * The spans of `log.entries[i].response.content.{text,size}` and of
 * `log.entries[i]._webSocketMessages`, by entry index.
 */
export function harContentSpans(json: string): Map<number, ContentSpans> {
  return new HarScanner(json).scan();
}
