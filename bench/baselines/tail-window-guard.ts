/**
 * Seed 002 §10.2's MinimalStreamGuard, adapted from block to redaction over the
 * same rules as the engine: it keeps a tail of twice the longest rule's maximum
 * length (§3.2: "the tail keeps about twice the longest sensitive pattern"),
 * runs every rule on tail + chunk at each push, releases everything but the
 * new tail, and holds the tail. Its hold is a constant 2 × maxLength however
 * innocent the text, and its cost per push grows with that tail.
 */
import { type RegexRule, redactAll } from './regex-redaction.ts';

export class TailWindowGuard {
  private tail = '';
  readonly tailSize: number;

  constructor(private readonly rules: readonly RegexRule[]) {
    this.tailSize = 2 * Math.max(1, ...rules.map((r) => r.maxLength));
  }

  push(chunk: string): string {
    const window = redactAll(this.rules, this.tail + chunk);
    const cut = Math.max(0, window.length - this.tailSize);
    this.tail = window.slice(cut);
    return window.slice(0, cut);
  }

  end(): string {
    const rest = redactAll(this.rules, this.tail);
    this.tail = '';
    return rest;
  }

  get held(): number {
    return this.tail.length;
  }
}
