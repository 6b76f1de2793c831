/**
 * Issue 19 §3, per push: the guard trims what it no longer needs only once the
 * view has grown `trimStride.units` since the last trim, not on every push. What
 * is kept bounds memory and must never change a verdict or a release: for any
 * text, any chunking and any stride, every push returns exactly what the slow
 * path (a trim on every push, stride 1) returns, and holds as much.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimStride } from '../../src/core/guard/stream-guard.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { type CompiledPack, compilePack } from '../../src/core/rules/compile-pack.ts';
import { engineTestPack } from '../support/engine-test-pack.ts';
import { guardSteps, withSetting } from '../support/guard-steps.ts';
import { shippedPacks } from '../support/shipped-packs.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';

/** Every push's result and hold, then the end's, with trims every `stride` view units. */
function run(pack: CompiledPack, chunks: readonly string[], stride: number): unknown[] {
  return withSetting(trimStride, 'units', stride, () => guardSteps(pack, chunks));
}

const strides = fc.integer({ min: 2, max: 80 });

describe('trim stride (issue 19 §3)', () => {
  describe.each([['engine-test', engineTestPack], ...shippedPacks()])('%s pack', (_name, spec) => {
    const pack = compilePack(spec);
    it('any stride gives every push the result of a trim per push', { timeout: 300_000 }, () => {
      fc.assert(
        fc.property(textArbitrary(spec), cutsArbitrary, strides, (text, fractions, stride) => {
          const chunks = cut(text, fractions);
          expect(run(pack, chunks, stride)).toEqual(run(pack, chunks, 1));
        }),
        { numRuns: Math.ceil(PROPERTY_RUNS / 10) },
      );
    });
  });

  // All packs together, token-sized pushes of prose around values the deferred rules
  // wait for (e-mail addresses, SSNs, Mailchimp keys): their probes decide what is kept.
  const core = getCorePack();
  const word = fc.stringMatching(/^[a-f]{1,9}$|^[a-z]{1,9}$/);
  const value = fc.oneof(
    fc
      .tuple(fc.stringMatching(/^[a-z0-9.]{1,40}$/), fc.stringMatching(/^[a-z]{3,10}$/))
      .map(([local, host]) => `${local}@${host}-mail.org`),
    fc.stringMatching(/^[0-9]{3}-[0-9]{2}-[0-9]{4}$/),
    fc.stringMatching(/^[0-9a-f]{32}-us[0-9]{1,2}$/),
    fc.stringMatching(/^[0-9a-f]{10,40}$/),
  );
  const prose = fc
    .array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: value }), {
      minLength: 1,
      maxLength: 40,
    })
    .map((words) => words.join(' '));
  const sizes = fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 16 });

  it('all packs, 1-8-unit pushes', { timeout: 300_000 }, () => {
    fc.assert(
      fc.property(prose, sizes, strides, (text, lengths, stride) => {
        const chunks: string[] = [];
        for (let at = 0, i = 0; at < text.length; i++) {
          const size = lengths[i % lengths.length] as number;
          chunks.push(text.slice(at, at + size));
          at += size;
        }
        expect(run(core, chunks, stride)).toEqual(run(core, chunks, 1));
      }),
      { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
    );
  });
});
