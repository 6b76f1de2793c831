/**
 * The naive streaming guard of LLM Guard's streaming example: keep the whole
 * text so far and rerun every rule on all of it at each chunk, releasing what
 * the new scan adds beyond what was already released (it cannot take back
 * what it released). O(n²) in the stream length.
 */
import { type RegexRule, redactAll } from './regex-redaction.ts';

export class NaiveRescanGuard {
  private text = '';
  private released = 0;

  constructor(private readonly rules: readonly RegexRule[]) {}

  push(chunk: string): string {
    this.text += chunk;
    const scanned = redactAll(this.rules, this.text);
    const emit = scanned.slice(this.released);
    this.released = Math.max(this.released, scanned.length);
    return emit;
  }

  end(): string {
    return '';
  }
}
