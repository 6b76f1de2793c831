/**
 * Citation and entity references that point into a message's text by offset
 * (ChatGPT `metadata.content_references[]` with `start_idx`/`end_idx` and a
 * `matched_text`, legacy `metadata.citations[]` with `start_ix`/`end_ix`;
 * WIRE-FORMATS.md §1.4, §1.10.3). When the guard changes the text, each
 * reference is moved to where its text now sits, or dropped: never left
 * pointing at the wrong text (issue 3, "Events keep … non-text fields").
 */
import type { JsonPath } from './json-string-span.ts';
import type { JsonEdit } from './json-value-edit.ts';
import { isRecord } from './sse-json-render.ts';

const OFFSET_KEYS = [
  ['start_idx', 'end_idx'],
  ['start_ix', 'end_ix'],
] as const;

export interface OffsetRef {
  /** Path of the reference object. */
  path: JsonPath;
  startKey: string;
  endKey: string;
  start: number;
  end: number;
  matched?: string;
  /** Set when the reference is an element of an array (so it can be dropped). */
  parent?: { path: JsonPath; index: number };
}

/** Every object under `value` (at `base`) that carries a start/end offset pair. */
export function findOffsetRefs(value: unknown, base: JsonPath, depth = 0): OffsetRef[] {
  if (depth > 8) return [];
  const found: OffsetRef[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      for (const ref of findOffsetRefs(item, [...base, index], depth + 1)) {
        if (ref.parent === undefined && ref.path.length === base.length + 1) {
          ref.parent = { path: base, index };
        }
        found.push(ref);
      }
    });
    return found;
  }
  if (!isRecord(value)) return found;
  for (const [startKey, endKey] of OFFSET_KEYS) {
    const start = value[startKey];
    const end = value[endKey];
    if (typeof start === 'number' && typeof end === 'number') {
      const ref: OffsetRef = { path: base, startKey, endKey, start, end };
      if (typeof value.matched_text === 'string') ref.matched = value.matched_text;
      found.push(ref);
      return found;
    }
  }
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === 'object' && inner !== null) {
      found.push(...findOffsetRefs(inner, [...base, key], depth + 1));
    }
  }
  return found;
}

type Unit = (text: string) => { length: number; slice(a: number, b: number): string };

const utf16: Unit = (text) => ({
  length: text.length,
  slice: (a, b) => text.slice(a, b),
});

const codePoints: Unit = (text) => {
  const points = Array.from(text);
  return { length: points.length, slice: (a, b) => points.slice(a, b).join('') };
};

/** Which unit the server counted in: the one in which `matched_text` sits at the offsets. */
function unitOf(original: string, ref: OffsetRef): Unit {
  if (ref.matched !== undefined && original.slice(ref.start, ref.end) === ref.matched) {
    const cp = codePoints(original);
    return cp.slice(ref.start, ref.end) === ref.matched ? codePoints : utf16;
  }
  return codePoints;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  if (needle.length === 0) return at;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/** Where a reference goes in the guarded text: [start, end) in its unit, or null to drop it. */
function relocate(original: string, guarded: string, ref: OffsetRef): [number, number] | null {
  const unit = unitOf(original, ref);
  const o = unit(original);
  const g = unit(guarded);
  // Common prefix and suffix, counted in the reference's unit.
  let rawPrefix = commonPrefix(original, guarded);
  // Never count half of a surrogate pair as common.
  const last = original.charCodeAt(rawPrefix - 1);
  if (rawPrefix > 0 && last >= 0xd800 && last <= 0xdbff) rawPrefix--;
  const prefix = unit(original.slice(0, rawPrefix)).length;
  let suffix = 0;
  const max = Math.min(o.length, g.length) - prefix;
  while (
    suffix < max &&
    o.slice(o.length - suffix - 1, o.length - suffix) ===
      g.slice(g.length - suffix - 1, g.length - suffix)
  ) {
    suffix++;
  }
  if (ref.end <= prefix) return [ref.start, ref.end];
  if (ref.start >= o.length - suffix) {
    const shift = g.length - o.length;
    return [ref.start + shift, ref.end + shift];
  }
  // In the changed middle: follow the matched text when every occurrence survived.
  if (ref.matched !== undefined && ref.matched.length > 0) {
    const before = occurrences(original, ref.matched);
    const after = occurrences(guarded, ref.matched);
    const startUnits = (text: string, at: number) => unit(text.slice(0, at)).length;
    const k = before.findIndex((at) => startUnits(original, at) === ref.start);
    const target = after[k];
    if (k >= 0 && before.length === after.length && target !== undefined) {
      const start = startUnits(guarded, target);
      return [start, start + unit(ref.matched).length];
    }
  }
  return null;
}

/**
 * Edits that move or drop the references of a text that the guard changed
 * from `original` to `guarded`. References in one array that must be dropped
 * are filtered out together; a reference outside an array gets an empty span
 * at the end of the text (it points at nothing rather than at wrong text).
 */
export function offsetEdits(
  refs: readonly OffsetRef[],
  original: string,
  guarded: string,
): JsonEdit[] {
  if (original === guarded) return [];
  const moves: JsonEdit[] = [];
  const drops = new Map<string, { path: JsonPath; indexes: Set<number> }>();
  for (const ref of refs) {
    const to = relocate(original, guarded, ref);
    if (to !== null) {
      if (to[0] !== ref.start)
        moves.push({ path: [...ref.path, ref.startKey], json: String(to[0]) });
      if (to[1] !== ref.end) moves.push({ path: [...ref.path, ref.endKey], json: String(to[1]) });
      continue;
    }
    if (ref.parent !== undefined) {
      const key = JSON.stringify(ref.parent.path);
      const entry = drops.get(key) ?? { path: ref.parent.path, indexes: new Set<number>() };
      entry.indexes.add(ref.parent.index);
      drops.set(key, entry);
    } else {
      const end = Array.from(guarded).length;
      moves.push({ path: [...ref.path, ref.startKey], json: String(end) });
      moves.push({ path: [...ref.path, ref.endKey], json: String(end) });
    }
  }
  // Numbers first (their paths still hold), then the array filters.
  const filters: JsonEdit[] = [...drops.values()].map(({ path, indexes }) => ({
    path,
    keep: (index: number) => !indexes.has(index),
  }));
  // A moved reference inside an array that is filtered afterwards keeps its index until then.
  return [...moves, ...filters];
}
