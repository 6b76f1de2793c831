/**
 * Value-level edits of a JSON text that keep every other byte as the server
 * sent it: replace any value (a number, an op name) or drop elements of an
 * array (`json-string-span.ts` builds its string edits on the same locator); citation offsets
 * (`start_idx`/`end_idx`, WIRE-FORMATS.md §1.4) are numbers and a citation that
 * can no longer point at the right text must be dropped from its array.
 */
import type { JsonPath } from './json-string-span.ts';

export type JsonEdit =
  /** Replace the value at `path` with the JSON text `json`. */
  | { path: JsonPath; json: string }
  /** Keep only the elements of the array at `path` for which `keep(index)` holds. */
  | { path: JsonPath; keep: (index: number) => boolean };

export interface ValueSpan {
  start: number;
  end: number;
  /** Spans of the elements when the value is an array. */
  elements?: { start: number; end: number }[];
}

const LITERAL = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

class Locator {
  private i = 0;
  constructor(private readonly s: string) {}

  private ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else break;
    }
  }

  private fail(what: string): never {
    throw new SyntaxError(`JSON: ${what} at ${this.i}`);
  }

  private string(): string {
    const start = this.i;
    if (this.s[this.i] !== '"') this.fail('expected a string');
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

  /** Skips one value; returns the span of the value at `path[depth..]` when it lies inside. */
  value(path: JsonPath, depth: number): ValueSpan | null {
    this.ws();
    const start = this.i;
    const here = depth === path.length;
    const c = this.s[this.i];
    if (c === '{' || c === '[') {
      const isArray = c === '[';
      const close = isArray ? ']' : '}';
      const elements: { start: number; end: number }[] = [];
      let found: ValueSpan | null = null;
      this.i++;
      this.ws();
      if (this.s[this.i] === close) {
        this.i++;
      } else {
        for (let index = 0; ; index++) {
          this.ws();
          let key: string | number = index;
          if (!isArray) {
            key = this.string();
            this.ws();
            if (this.s[this.i] !== ':') this.fail('expected ":"');
            this.i++;
            this.ws();
          }
          const onPath = !here && path[depth] === key;
          const elementStart = this.i;
          const inner = this.value(path, onPath ? depth + 1 : path.length + 1);
          if (onPath && inner !== null) found = inner;
          if (here && isArray) elements.push({ start: elementStart, end: this.i });
          this.ws();
          if (this.s[this.i] === ',') {
            this.i++;
            continue;
          }
          if (this.s[this.i] === close) {
            this.i++;
            break;
          }
          this.fail(`expected "," or "${close}"`);
        }
      }
      if (here) return isArray ? { start, end: this.i, elements } : { start, end: this.i };
      return found;
    }
    if (c === '"') this.string();
    else {
      LITERAL.lastIndex = this.i;
      const m = LITERAL.exec(this.s);
      if (m === null) this.fail('unexpected token');
      this.i += m[0].length;
    }
    return here ? { start, end: this.i } : null;
  }
}

/** Span of the value at `path` (with its elements' spans when it is an array), or null. */
export function locateJsonValue(json: string, path: JsonPath): ValueSpan | null {
  return new Locator(json).value(path, 0);
}

/** Applies the edits in order (each one re-locates its path in the text the previous left). */
export function editJson(json: string, edits: readonly JsonEdit[]): string {
  let out = json;
  for (const edit of edits) {
    const span = locateJsonValue(out, edit.path);
    if (span === null) throw new Error(`no value at ${JSON.stringify(edit.path)}`);
    if ('json' in edit) {
      out = out.slice(0, span.start) + edit.json + out.slice(span.end);
      continue;
    }
    if (span.elements === undefined) throw new Error(`no array at ${JSON.stringify(edit.path)}`);
    const elements = span.elements;
    const kept = elements.filter((_, index) => edit.keep(index));
    if (kept.length === elements.length) continue;
    // Keep the server's separator (`,` or `, `) between the elements that stay.
    const first = elements[0];
    const second = elements[1];
    const separator =
      first !== undefined &&
      second !== undefined &&
      /^\s*,\s*$/.test(out.slice(first.end, second.start))
        ? out.slice(first.end, second.start)
        : ',';
    const body = kept.map((e) => out.slice(e.start, e.end)).join(separator);
    const head = first === undefined ? '' : out.slice(span.start + 1, first.start);
    const last = elements.at(-1);
    const tail = last === undefined ? '' : out.slice(last.end, span.end - 1);
    const inner = kept.length === 0 ? '' : head + body + tail;
    out = out.slice(0, span.start) + '[' + inner + ']' + out.slice(span.end);
  }
  return out;
}
