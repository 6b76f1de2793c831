/**
 * The flag event for an instruction-shaped memory write (issue 5 §4, seed 004
 * §6), raised by a wire adapter that sees the provider persist a memory
 * (ChatGPT: an assistant message to the `bio` tool, WIRE-FORMATS.md §1.3–1.4).
 * Offsets are code points of the memory text. `matched` carries the
 * instruction-shaped span only (like a guard event with `attachMatchedText`), so the
 * bridge can check it against the offsets and the background can digest it; it is
 * never stored.
 */
import type { MatchEvent } from '../guard/guard-event.ts';
import { codePointOffsetOf } from './code-point-offsets.ts';
import { findInstructionShape } from './instruction-shaped-memory.ts';

export const MEMORY_WRITE_RULE = 'memory-write-instruction';
export const MEMORY_AUDIT_PACK = 'memory-audit@1';

/** A flag event when `text` (a memory being written) is instruction-shaped, else null. */
export function memoryWriteFlag(text: string): MatchEvent | null {
  const shape = findInstructionShape(text);
  if (shape === null) return null;
  return {
    type: 'match',
    rule: MEMORY_WRITE_RULE,
    kind: 'injection',
    action: 'flag',
    start: codePointOffsetOf(text, shape.start),
    end: codePointOffsetOf(text, shape.end),
    pack: MEMORY_AUDIT_PACK,
    matched: text.slice(shape.start, shape.end),
  };
}
