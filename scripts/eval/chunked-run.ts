/**
 * Chunking invariance on real data (DESIGN.md §3.1): the same sample pushed
 * in random small chunks (seeded, so a failure reproduces; sizes 0–16 code
 * units, so splits land inside surrogate pairs and keywords) must give the
 * same output and the same events as one push of the whole text.
 */
import { type ScanOutcome, scanChunks, scanText } from '../../src/core/guard/scan-text.ts';
import type { GuardOptions } from '../../src/core/guard/stream-guard.ts';
import type { CompiledPack } from '../../src/core/rules/compile-pack.ts';
import { SeededRandom } from '../../bench/seeded-random.ts';

export function randomChunks(text: string, random: SeededRandom): string[] {
  const chunks: string[] = [];
  let i = 0;
  while (i < text.length) {
    const size = random.int(0, 16);
    chunks.push(text.slice(i, i + size));
    i += size;
  }
  return chunks;
}

function sameOutcome(a: ScanOutcome, b: ScanOutcome): boolean {
  return (
    a.output === b.output &&
    a.blocked === b.blocked &&
    JSON.stringify(a.events) === JSON.stringify(b.events)
  );
}

export interface ChunkedCheck {
  whole: ScanOutcome;
  equal: boolean;
}

export function wholeAndChunked(
  pack: CompiledPack,
  text: string,
  random: SeededRandom,
  options: GuardOptions = {},
): ChunkedCheck {
  const whole = scanText(pack, text, options);
  const chunked = scanChunks(pack, randomChunks(text, random), options);
  return { whole, equal: sameOutcome(whole, chunked) };
}
