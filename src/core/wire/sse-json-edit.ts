/**
 * Re-serialises an SSE frame whose JSON data gets value-level edits
 * (`json-value-edit.ts`), keeping every other byte: the `event:` line, the
 * optional space after `data:`, trailing spaces after the JSON (ChatGPT's
 * capture has them, WIRE-FORMATS.md §0.3) and the line endings.
 */
import { type JsonEdit, editJson } from './json-value-edit.ts';
import type { RawFrame } from './raw-frame.ts';

const LINES = /([^\r\n]*)(\r\n|\r|\n|$)/g;

export function editSseJson(frame: RawFrame, edits: readonly JsonEdit[]): string {
  if (edits.length === 0) return frame.raw;
  const lines: { text: string; end: string }[] = [];
  for (const m of frame.raw.matchAll(LINES)) {
    if (m[0] === '') break;
    lines.push({ text: m[1] ?? '', end: m[2] ?? '' });
  }
  const prefixOf = (text: string) => (text.startsWith('data: ') ? 'data: ' : 'data:');
  const dataLines = lines.filter((l) => l.text.startsWith('data:'));
  const data = dataLines.map((l) => l.text.slice(prefixOf(l.text).length)).join('\n');
  const rewritten = editJson(data, edits).split('\n');
  // Whitespace between tokens is kept, so the line count only changes when a
  // dropped element spanned lines: then the data goes out on one line.
  const parts = rewritten.length === dataLines.length ? rewritten : [rewritten.join('')];
  let k = 0;
  let out = '';
  for (const l of lines) {
    if (!l.text.startsWith('data:')) {
      out += l.text + l.end;
      continue;
    }
    const part = parts[k++];
    if (part !== undefined) out += prefixOf(l.text) + part + l.end;
  }
  return out;
}
