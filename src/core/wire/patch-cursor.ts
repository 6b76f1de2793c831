/**
 * The sticky `p`/`o` cursor of the JSON-patch-like web protocols (ChatGPT's
 * `delta_encoding` v1, WIRE-FORMATS.md §1.4; DeepSeek, §4.3): an op that
 * omits `p` and `o` continues the previous op's path with the previous op.
 * The cursor follows every top-level op, also those whose path the adapter
 * ignores, so that a continuation of a status or metadata op is never taken
 * for text (the F970 warning quoted in §1.4).
 */

export interface ResolvedOp {
  /** The op's path, or undefined when no op has named one yet. */
  path: string | undefined;
  op: string | undefined;
  /** True when both `p` and `o` were inherited from the previous op. */
  continued: boolean;
}

export interface PatchCursorRules {
  /** The op of a frame that names a path but no op. */
  opForPathOnly(path: string, value: unknown): string;
  /** The path of a frame that names an op but no path (undefined: keep the previous path). */
  pathForOpOnly(op: string): string | undefined;
}

export class PatchCursor {
  private path: string | undefined;
  private op: string | undefined;

  constructor(private readonly rules: PatchCursorRules) {}

  /** Resolves a top-level op's path and op and moves the cursor there. */
  resolve(fields: { p?: unknown; o?: unknown }, value: unknown): ResolvedOp {
    const p = typeof fields.p === 'string' ? fields.p : undefined;
    const o = typeof fields.o === 'string' ? fields.o : undefined;
    if (p === undefined && o === undefined) {
      return { path: this.path, op: this.op, continued: true };
    }
    const path = p ?? this.rules.pathForOpOnly(o as string) ?? this.path;
    const op = o ?? this.rules.opForPathOnly(p as string, value);
    this.path = path;
    this.op = op;
    return { path, op, continued: false };
  }

  /** Moves the cursor without an op naming it (e.g. after a whole-object frame). */
  moveTo(path: string | undefined, op: string | undefined): void {
    this.path = path;
    this.op = op;
  }
}

/** Joins a batch's base path and a sub-op's relative path with the protocol's separator. */
export function joinPath(base: string, relative: string, separator = '/'): string {
  if (base === '') return relative;
  if (relative === '') return base;
  if (relative.startsWith(separator)) return base + relative;
  return base + separator + relative;
}
