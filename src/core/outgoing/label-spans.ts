/**
 * Finds the source labels in one message's text (seed 001 §7.1.2–7.1.3) with
 * a compiled label pack, then drops the matches that are not labels by
 * position: inside a URL, link target or protected path
 * (`label-protected-spans.ts`), right after `/` or `\` (a path segment such as
 * `/tmp/屏幕搭话：a.png` or `C:\tmp\[屏幕画面]\b.png`), or a bracketed label
 * followed directly by `(` (Markdown link text `[屏幕截图](url)`).
 */
import { scanText } from '../guard/scan-text.ts';
import { unitIndexOf } from './code-point-offsets.ts';
import { type TextSpan, labelProtectedSpans } from './label-protected-spans.ts';
import type { CompiledLabelPack } from './source-label-pack.ts';

export interface LabelSpan extends TextSpan {
  /** The label rule that found it. */
  rule: string;
}

function overlaps(a: TextSpan, spans: readonly TextSpan[]): boolean {
  return spans.some((s) => a.start < s.end && s.start < a.end);
}

function isLinkText(text: string, span: TextSpan): boolean {
  const label = text.slice(span.start, span.end).trimEnd();
  const last = label.at(-1);
  return (last === ']' || last === '】') && text[span.start + label.length] === '(';
}

/** Label spans of `text` (UTF-16 offsets), in order, never overlapping. */
export function findLabels(pack: CompiledLabelPack, text: string): LabelSpan[] {
  if (text.length === 0) return [];
  const events = scanText(pack.rules, text).events;
  if (events.length === 0) return [];
  const guarded = labelProtectedSpans(text);
  const labels: LabelSpan[] = [];
  const matches = events.map((event) => {
    // Fail closed: history the labels cannot be read in is not sent half-projected.
    if (event.type === 'error') throw new Error(`label pack ${pack.name}: ${event.message}`);
    return event;
  });
  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  for (const event of matches) {
    const start = unitIndexOf(text, event.start);
    const span = { start, end: start + unitIndexOf(text.slice(start), event.end - event.start) };
    const before = text[span.start - 1];
    if (before === '/' || before === '\\') continue;
    if (overlaps(span, guarded) || isLinkText(text, span)) continue;
    if (labels.length > 0 && (labels.at(-1) as LabelSpan).end > span.start) continue;
    labels.push({ ...span, rule: event.rule });
  }
  return labels;
}

/** `text` without the given labels. */
export function withoutLabels(text: string, labels: readonly TextSpan[]): string {
  let out = '';
  let at = 0;
  for (const l of labels) {
    out += text.slice(at, l.start);
    at = l.end;
  }
  return out + text.slice(at);
}

/**
 * `text` without its labels, re-read until no label is left: removing one
 * label can join two pieces into a new one ("屏幕屏幕搭话：搭话："), and the
 * projected copy must hold none, so that projecting it again changes nothing.
 * Every round removes at least one character, so this ends.
 */
export function stripAllLabels(
  pack: CompiledLabelPack,
  text: string,
  labels: readonly TextSpan[],
): string {
  let out = withoutLabels(text, labels);
  for (let found = findLabels(pack, out); found.length > 0; found = findLabels(pack, out)) {
    out = withoutLabels(out, found);
  }
  return out;
}
