/**
 * "成链截断" — chain truncation (seed 001 §7.1.2, cross-message form §7.1.3).
 *
 * The input is a sequence of text units (the text strings of one assistant
 * message, or of the assistant messages of the tail run, in order), each with
 * its labels. A labelled comment runs from the end of its label to the next
 * label in the same unit or to the unit's end: every unit has its own lexical
 * state and only the chain count carries across units (§7.1.3).
 *
 * A comment counts when it has at least MIN_PROSE letters/digits and ends at a
 * sentence end (§7.1.2). A chain is two counting comments; shorter (or
 * unterminated) comments between them do not break it and are cut with what
 * follows. The cut point is the next label after the first counting comment:
 * - units before the cut unit keep their text without labels;
 * - the cut unit keeps its text before the cut, without labels, up to the last
 *   sentence end (and its closing quotes/brackets); with no sentence end none of
 *   it is kept. The first counting comment ends at a sentence end, so when it
 *   is in the cut unit it is always kept whole;
 * - units after the cut unit are left out (the caller drops them: "切点所在消息
 *   之后的文本全部移出视图", the cut counts in the unit of the label, not where
 *   the second comment finishes).
 */
import { type LabelSpan, stripAllLabels } from './label-spans.ts';
import type { CompiledLabelPack } from './source-label-pack.ts';
import { endsWithSentence, lastSentenceEnd } from './sentence-end.ts';

export interface LabelledUnit {
  text: string;
  labels: readonly LabelSpan[];
}

export interface ChainCut {
  /** Index of the unit holding the cut point. */
  unit: number;
  /** UTF-16 offset of the cut point in that unit (the start of the label there). */
  at: number;
  /** The cut unit's new text (labels removed, cut at its last sentence end; may be ""). */
  kept: string;
}

const PROSE = /[\p{L}\p{N}]/gu;

function proseLength(text: string): number {
  return text.match(PROSE)?.length ?? 0;
}

interface Comment {
  unit: number;
  label: number;
  counts: boolean;
}

function commentsOf(units: readonly LabelledUnit[], minProse: number): Comment[] {
  const comments: Comment[] = [];
  units.forEach((u, unit) => {
    u.labels.forEach((label, i) => {
      const end = u.labels[i + 1]?.start ?? u.text.length;
      const body = u.text.slice(label.end, end);
      const counts = proseLength(body) >= minProse && endsWithSentence(body);
      comments.push({ unit, label: i, counts });
    });
  });
  return comments;
}

/** The cut for a chain in `units`, or null when they hold no chain. */
export function findChainCut(
  units: readonly LabelledUnit[],
  pack: CompiledLabelPack,
): ChainCut | null {
  const comments = commentsOf(units, pack.minProse);
  const first = comments.findIndex((c) => c.counts);
  if (first < 0 || !comments.slice(first + 1).some((c) => c.counts)) return null;
  const next = comments[first + 1] as Comment;
  const unit = units[next.unit] as LabelledUnit;
  const at = (unit.labels[next.label] as LabelSpan).start;
  const before = stripAllLabels(
    pack,
    unit.text.slice(0, at),
    unit.labels.filter((l) => l.end <= at),
  );
  return { unit: next.unit, at, kept: before.slice(0, lastSentenceEnd(before)) };
}
