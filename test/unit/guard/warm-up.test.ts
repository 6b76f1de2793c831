/**
 * Warming a pack in steps (warm-up.ts) changes when its caches are built, never
 * what a guard does: a warmed pack and a fresh one guard any text alike.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { StreamGuard, type GuardOptions } from '../../../src/core/guard/stream-guard.ts';
import { warmUpSteps } from '../../../src/core/guard/warm-up.ts';
import type { CompiledPack } from '../../../src/core/rules/compile-pack.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import { serialiseCompiledPack } from '../../../src/core/rules/serialised-pack.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';
import { PROPERTY_RUNS, textArbitrary } from '../../support/text-arbitraries.ts';

const options: GuardOptions = { attachMatchedText: true, policy: { pii: 'flag' } };

function guardAll(pack: CompiledPack, text: string) {
  const guard = new StreamGuard(pack, options);
  const a = guard.push(text);
  const b = guard.end();
  return { out: a.emit + b.emit, events: [...a.events, ...b.events] };
}

describe('warmUpSteps', () => {
  let warmed: CompiledPack;
  let fresh: CompiledPack;
  let yields = 0;
  beforeAll(() => {
    const data = JSON.parse(JSON.stringify(serialiseCompiledPack(compilePack(engineTestPack))));
    warmed = loadCompiledPack(data);
    fresh = loadCompiledPack(data);
    for (const _ of warmUpSteps(warmed, options)) yields++;
  });

  it('works in several steps', () => {
    expect(yields).toBeGreaterThanOrEqual(3);
  });

  it('for any text, a warmed pack guards exactly as a fresh one', () => {
    fc.assert(
      fc.property(textArbitrary(engineTestPack), (text) => {
        expect(guardAll(warmed, text)).toEqual(guardAll(fresh, text));
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 1_000) },
    );
  });
});
