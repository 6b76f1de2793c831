/**
 * `csg outgoing --reference-only FILE`: the messages to leave out, written by
 * hand as JSON Lines, one mark per line (blank lines are skipped):
 *
 *   {"index": 3}              the message at index 3 of the request's list
 *   {"text": "…"}             every message whose text is exactly this
 *                             (its content string, or its text parts joined by "\n")
 *
 * The marks become keyed digests (HMAC-SHA-256 with a key made for this run
 * and never written anywhere), as the extension keeps them with its own
 * per-install key: core only ever sees digests.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { HistoryMessage } from '../core/outgoing/history-messages.ts';
import { messageText } from '../core/outgoing/history-messages.ts';
import { fileErrorMessage } from './file-error-message.ts';
import { UsageError } from './usage-error.ts';

export type ReferenceMark = { index: number } | { text: string };

export async function readReferenceMarks(path: string): Promise<ReferenceMark[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${fileErrorMessage(error)}`);
  }
  const marks: ReferenceMark[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${path} line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${where}: not JSON`);
    }
    const record =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    const keys = Object.keys(record);
    if (keys.length === 1 && Number.isInteger(record.index) && (record.index as number) >= 0) {
      marks.push({ index: record.index as number });
    } else if (keys.length === 1 && typeof record.text === 'string') {
      marks.push({ text: record.text });
    } else {
      throw new UsageError(`${where}: expected {"index": N} or {"text": "..."}`);
    }
  });
  return marks;
}

/** A digest function with a fresh key, and the digests of the marks. */
export function digestMarks(
  marks: readonly ReferenceMark[],
  messages: readonly HistoryMessage[],
): { digest: (text: string) => string; digests: Set<string> } {
  const key = randomBytes(32);
  const digest = (text: string) => createHmac('sha256', key).update(text, 'utf8').digest('hex');
  const digests = new Set<string>();
  for (const mark of marks) {
    if ('text' in mark) {
      digests.add(digest(mark.text));
      continue;
    }
    const message = messages[mark.index];
    if (message === undefined) {
      throw new UsageError(
        `reference-only index ${mark.index} is past the last message (${messages.length - 1})`,
      );
    }
    digests.add(digest(messageText(message)));
  }
  return { digest, digests };
}
