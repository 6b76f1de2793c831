/**
 * Finds where a string value sits in a JSON text, so a rewrite can replace
 * just that literal and keep every other byte (key order, spacing, number
 * spelling, escapes) exactly as the server sent it.
 */
import { locateJsonValue } from './json-value-edit.ts';

export type JsonPath = readonly (string | number)[];

export interface Span {
  start: number;
  end: number;
}

/** Span of the JSON string literal (quotes included) at `path`, or null. */
export function findStringSpan(json: string, path: JsonPath): Span | null {
  if (path.length === 0) return null;
  const span = locateJsonValue(json, path);
  return span !== null && json[span.start] === '"' ? { start: span.start, end: span.end } : null;
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
