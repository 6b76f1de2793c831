/**
 * The lower bound on held text: a guard that knows the future holds only from
 * the start of a real text-changing match until the match completes. Given the
 * whole-text matches (code-unit spans) and the stream's push points (code units
 * pushed so far), the hold at a point p is p - start when a match [start, end)
 * has start < p < end, else 0.
 */
import type { GuardEvent } from '../src/core/guard/guard-event.ts';

export interface UnitSpan {
  start: number;
  end: number;
}

/**
 * Code-unit spans of the text-changing match events of a whole-text scan
 * (event offsets are code points; one pass over the text converts them).
 */
export function changingMatchSpans(text: string, events: readonly GuardEvent[]): UnitSpan[] {
  const spans: { start: number; end: number }[] = [];
  for (const e of events) {
    if (e.type === 'match' && e.action !== 'flag') spans.push({ start: e.start, end: e.end });
  }
  spans.sort((a, b) => a.start - b.start);
  const points = [...new Set(spans.flatMap((s) => [s.start, s.end]))].sort((a, b) => a - b);
  const unitAt = new Map<number, number>();
  let cp = 0;
  let unit = 0;
  for (const point of points) {
    while (cp < point && unit < text.length) {
      const code = text.charCodeAt(unit);
      const next = text.charCodeAt(unit + 1);
      unit += code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
      cp++;
    }
    unitAt.set(point, unit);
  }
  return spans.map((s) => ({ start: unitAt.get(s.start) ?? 0, end: unitAt.get(s.end) ?? 0 }));
}

/** Mean clairvoyant hold over the push points (ascending code-unit offsets). */
export function clairvoyantMeanHeld(
  spans: readonly UnitSpan[],
  pushPoints: ArrayLike<number>,
): number {
  let total = 0;
  let i = 0;
  for (let k = 0; k < pushPoints.length; k++) {
    const p = pushPoints[k] as number;
    while (i < spans.length && (spans[i] as UnitSpan).end <= p) i++;
    const span = spans[i];
    if (span !== undefined && span.start < p && p < span.end) total += p - span.start;
  }
  return pushPoints.length === 0 ? 0 : total / pushPoints.length;
}
