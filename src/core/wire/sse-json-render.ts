/**
 * Re-serialises an SSE frame whose data is JSON with some string values
 * replaced, keeping every other byte: field order, the optional space after
 * `data:`, line endings, and a data payload spread over several `data:` lines.
 */
import { type JsonPath, replaceStrings } from './json-string-span.ts';
import type { RawFrame } from './raw-frame.ts';

export interface StringEdit {
  path: JsonPath;
  value: string;
}

const LINES = /([^\r\n]*)(\r\n|\r|\n|$)/g;

export function renderSseJson(frame: RawFrame, edits: readonly StringEdit[]): string {
  const lines: { text: string; end: string }[] = [];
  for (const m of frame.raw.matchAll(LINES)) {
    if (m[0] === '') break;
    lines.push({ text: m[1] ?? '', end: m[2] ?? '' });
  }
  const dataLines = lines.filter((l) => l.text.startsWith('data:'));
  const prefixOf = (text: string) => (text.startsWith('data: ') ? 'data: ' : 'data:');
  const data = dataLines.map((l) => l.text.slice(prefixOf(l.text).length)).join('\n');
  const rewritten = replaceStrings(data, edits).split('\n');
  if (rewritten.length !== dataLines.length) throw new Error('data line count changed');
  let k = 0;
  return lines
    .map((l) => {
      if (!l.text.startsWith('data:')) return l.text + l.end;
      const line = prefixOf(l.text) + (rewritten[k++] as string);
      return line + l.end;
    })
    .join('');
}

/** Parses an SSE frame's data as JSON; undefined when it is not JSON. */
export function sseJson(frame: RawFrame): unknown {
  if (frame.sse === undefined) return undefined;
  try {
    return JSON.parse(frame.sse.data) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
