/**
 * Where and why a text is not JSON, for one-line messages that name the
 * position (`csg replay` on a malformed HAR). Run only after `JSON.parse`
 * failed: V8's own messages sometimes carry no position and may quote the
 * text around the error, which can hold a secret; this never quotes more
 * than the one offending character.
 */

export interface JsonSyntaxError {
  /** Offset (UTF-16 units) of the first character that cannot continue the JSON. */
  position: number;
  /** E.g. `unexpected "}"`, `unexpected end of input`. */
  reason: string;
}

class Failure {
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {}
}

const LITERALS = ['true', 'false', 'null'];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Checker {
  private i = 0;

  constructor(private readonly s: string) {}

  document(): void {
    this.value();
    this.ws();
    if (this.i < this.s.length) this.unexpected();
  }

  private unexpected(): never {
    if (this.i >= this.s.length) throw new Failure(this.s.length, 'unexpected end of input');
    const c = this.s.codePointAt(this.i) as number;
    const shown =
      c < 0x20 || c === 0x7f
        ? `U+${c.toString(16).toUpperCase().padStart(4, '0')}`
        : `"${String.fromCodePoint(c)}"`;
    throw new Failure(this.i, `unexpected ${shown}`);
  }

  private ws(): void {
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else return;
    }
  }

  private value(): void {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.container('}', true);
    if (c === '[') return this.container(']', false);
    if (c === '"') return this.string();
    for (const literal of LITERALS) {
      if (this.s.startsWith(literal, this.i)) {
        this.i += literal.length;
        return;
      }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (m === null) this.unexpected();
    this.i += m[0].length;
  }

  private container(close: string, isObject: boolean): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      if (isObject) {
        this.ws();
        if (this.s[this.i] !== '"') this.unexpected();
        this.string();
        this.ws();
        if (this.s[this.i] !== ':') this.unexpected();
        this.i++;
      }
      this.value();
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === close) {
        this.i++;
        return;
      }
      this.unexpected();
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      if (this.i >= this.s.length) this.unexpected();
      const c = this.s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) this.unexpected();
      if (c !== 0x5c) {
        this.i++;
        continue;
      }
      this.i++;
      const e = this.s[this.i];
      if (e === 'u') {
        for (let k = 1; k <= 4; k++) {
          this.i++;
          if (!/[0-9a-fA-F]/.test(this.s[this.i] ?? '')) this.unexpected();
        }
        this.i++;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
        this.i++;
      } else {
        this.unexpected();
      }
    }
  }
}

/** The first syntax error in `text`, or null when it is valid JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  try {
    new Checker(text).document();
    return null;
  } catch (error) {
    if (error instanceof Failure) return { position: error.position, reason: error.reason };
    // Nesting too deep for the stack: say so without a position.
    return { position: text.length, reason: 'nested too deeply' };
  }
}
