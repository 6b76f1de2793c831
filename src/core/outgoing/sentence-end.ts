/**
 * Sentence ends for chain truncation (seed 001 §7.1.2): `。！？!?…～`, and the
 * ASCII `.` or `~` unless an ASCII letter or digit follows it directly
 * (example.com, v2.0, 1.5) — except when what follows is the next label
 * (`today.screen comment:`), which the caller expresses by cutting the text
 * there. Closing quotes and brackets right after the mark belong to the sentence.
 */

const ALWAYS = new Set(['。', '！', '？', '!', '?', '…', '～']);
const ASCII_MARKS = new Set(['.', '~']);
const CLOSERS = new Set([
  '"',
  "'",
  '”',
  '’',
  '」',
  '』',
  '）',
  ')',
  '】',
  ']',
  '》',
  '〉',
  '*',
  '_',
]);
const ASCII_WORD = /[A-Za-z0-9]/;

function isMark(text: string, i: number): boolean {
  const c = text[i] as string;
  if (ALWAYS.has(c)) return true;
  if (!ASCII_MARKS.has(c)) return false;
  const next = text[i + 1];
  return next === undefined || !ASCII_WORD.test(next);
}

/**
 * Length of the longest prefix of `text` that ends at a sentence end (the
 * mark and its closing quotes/brackets), or 0 when there is none.
 */
export function lastSentenceEnd(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (!isMark(text, i)) continue;
    let end = i + 1;
    while (end < text.length && CLOSERS.has(text[end] as string)) end++;
    return end;
  }
  return 0;
}

/** Whether `text`, without trailing whitespace, ends at a sentence end. */
export function endsWithSentence(text: string): boolean {
  const trimmed = text.trimEnd();
  return trimmed.length > 0 && lastSentenceEnd(trimmed) === trimmed.length;
}
