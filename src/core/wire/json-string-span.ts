/**
 * Finds where a string value sits in a JSON text, so a rewrite can replace
 * just that literal and keep every other byte (key order, spacing, number
 * spelling, escapes) exactly as the server sent it.
 */

export type JsonPath = readonly (string | number)[];

export interface Span {
  start: number;
  end: number;
}

class Scanner {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else break;
    }
  }

  fail(what: string): never {
    throw new SyntaxError(`JSON: ${what} at ${this.i}`);
  }

  string(): string {
    if (this.s[this.i] !== '"') this.fail('expected a string');
    const start = this.i;
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '\\') this.i += 2;
      else if (c === '"') {
        this.i++;
        return JSON.parse(this.s.slice(start, this.i)) as string;
      } else this.i++;
    }
    return this.fail('unterminated string');
  }

  /** Skips any value; returns the span of the value at `path` when found inside it. */
  value(path: JsonPath, depth: number): Span | null {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(path, depth);
    if (c === '[') return this.array(path, depth);
    if (c === '"') {
      const start = this.i;
      this.string();
      return depth === path.length ? { start, end: this.i } : null;
    }
    const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
      this.s.slice(this.i, this.i + 64),
    );
    if (m === null) this.fail('unexpected token');
    this.i += m[0].length;
    return null;
  }

  object(path: JsonPath, depth: number): Span | null {
    this.i++;
    let found: Span | null = null;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return null;
    }
    for (;;) {
      this.ws();
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail('expected ":"');
      this.i++;
      const onPath = depth < path.length && path[depth] === key;
      const inner = this.value(onPath ? path : [], onPath ? depth + 1 : 0);
      if (onPath && inner !== null) found = inner;
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (this.s[this.i] === '}') {
        this.i++;
        return found;
      }
      this.fail('expected "," or "}"');
    }
  }

  array(path: JsonPath, depth: number): Span | null {
    this.i++;
    let found: Span | null = null;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return null;
    }
    for (let index = 0; ; index++) {
      const onPath = depth < path.length && path[depth] === index;
      const inner = this.value(onPath ? path : [], onPath ? depth + 1 : 0);
      if (onPath && inner !== null) found = inner;
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      if (this.s[this.i] === ']') {
        this.i++;
        return found;
      }
      this.fail('expected "," or "]"');
    }
  }
}

/** Span of the JSON string literal (quotes included) at `path`, or null. */
export function findStringSpan(json: string, path: JsonPath): Span | null {
  if (path.length === 0) return null;
  const scanner = new Scanner(json);
  return scanner.value(path, 0);
}

/** Replaces the string values at the given paths; throws when a path holds no string. */
export function replaceStrings(
  json: string,
  edits: readonly { path: JsonPath; value: string }[],
): string {
  const spans = edits.map((edit) => {
    const span = findStringSpan(json, edit.path);
    if (span === null) throw new Error(`no string at ${JSON.stringify(edit.path)}`);
    return { span, value: edit.value };
  });
  spans.sort((a, b) => b.span.start - a.span.start);
  let out = json;
  for (const { span, value } of spans) {
    out = out.slice(0, span.start) + JSON.stringify(value) + out.slice(span.end);
  }
  return out;
}
