/**
 * Edits on a parsed JSON value that go beyond replacing string literals, for
 * the few frames that need them: text offsets (OpenAI `annotations`, Claude
 * `citations`) that a redaction would leave pointing at the wrong text, and
 * token logprobs that would still spell the original text (WIRE-FORMATS.md
 * §7.2, §2.3; issue 3 "citations whose offsets move … adjusted or dropped").
 *
 * Only the frame that needs such an edit is re-stringified; every other frame
 * keeps its bytes (json-string-span.ts).
 */
import type { JsonPath } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';

/** The value at `path`, or undefined. */
export function getJsonPath(root: unknown, path: JsonPath): unknown {
  let at: unknown = root;
  for (const key of path) {
    if (typeof key === 'number') at = Array.isArray(at) ? (at[key] as unknown) : undefined;
    else at = isRecord(at) ? at[key] : undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

/** Sets the value at `path` (which must exist up to its last key). */
export function setJsonPath(root: unknown, path: JsonPath, value: unknown): void {
  const parent = getJsonPath(root, path.slice(0, -1));
  const key = path[path.length - 1];
  if (typeof key === 'number' && Array.isArray(parent)) parent[key] = value;
  else if (typeof key === 'string' && isRecord(parent)) parent[key] = value;
  else throw new Error(`no container at ${JSON.stringify(path)}`);
}

/**
 * Code points the original and the guarded text share at their start: an
 * offset range ending there still points at the same characters. Counted in
 * code points, which is never more than the UTF-16 count, so the bound is
 * safe whichever unit the provider counts in.
 */
export function unchangedPrefix(original: string, guarded: string): number {
  let points = 0;
  let i = 0;
  for (;;) {
    const a = original.codePointAt(i);
    if (a === undefined || a !== guarded.codePointAt(i)) return points;
    i += a > 0xffff ? 2 : 1;
    points++;
  }
}

/**
 * Collapses an annotation whose `start_index`/`end_index` range reaches past
 * `prefix` into the empty range at `prefix` (it keeps its place in its list
 * and its URL/title, but no longer marks any text). Returns true when changed.
 */
export function collapseOffsets(annotation: unknown, prefix: number): boolean {
  if (!isRecord(annotation)) return false;
  const { start_index: start, end_index: end } = annotation;
  if (typeof start !== 'number' || typeof end !== 'number') return false;
  if (start <= prefix && end <= prefix) return false;
  annotation.start_index = prefix;
  annotation.end_index = prefix;
  return true;
}

/** Empties a non-empty `logprobs` array on `holder`; returns true when changed. */
export function dropLogprobs(holder: unknown): boolean {
  if (!isRecord(holder) || !Array.isArray(holder.logprobs) || holder.logprobs.length === 0) {
    return false;
  }
  holder.logprobs = [];
  return true;
}
