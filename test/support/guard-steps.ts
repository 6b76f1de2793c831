/**
 * What the fast-path differentials of issue 19 §3 compare: every push's result and
 * hold, then the end's result and counters, of one guard over the chunks, and the
 * same with a shortcut switched off (the slow path). Shared by the property tests
 * of quiet probes, second-unit filtering, spawn look-ahead and the trim stride.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { type GuardOptions, StreamGuard } from '../../src/core/guard/stream-guard.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import type { CompiledPack } from '../../src/core/rules/compile-pack.ts';
import { PROPERTY_RUNS, splitBySizes } from './text-arbitraries.ts';

/** Every push's result and `heldUnits`, then the end's result and counters. */
export function guardSteps(
  pack: CompiledPack,
  chunks: readonly string[],
  options: GuardOptions = {},
): unknown[] {
  const guard = new StreamGuard(pack, options);
  const steps: unknown[] = [];
  for (const chunk of chunks) steps.push({ ...guard.push(chunk), held: guard.heldUnits });
  steps.push({ ...guard.end(), counters: guard.counters });
  return steps;
}

/** `run()` with `holder[key]` set to `value`, restored afterwards whatever happens. */
export function withSetting<H extends object, K extends keyof H, T>(
  holder: H,
  key: K,
  value: H[K],
  run: () => T,
): T {
  const saved = holder[key];
  holder[key] = value;
  try {
    return run();
  } finally {
    holder[key] = saved;
  }
}

/** `guardSteps` with a shortcut's `enabled` switch set to `on`. */
export function stepsWithShortcut(
  shortcut: { enabled: boolean },
  on: boolean,
  pack: CompiledPack,
  chunks: readonly string[],
  options: GuardOptions = {},
): unknown[] {
  return withSetting(shortcut, 'enabled', on, () => guardSteps(pack, chunks, options));
}

/** Up to 30 words and values (one in four a value), each followed by a gap. */
export function proseOf(
  word: fc.Arbitrary<string>,
  value: fc.Arbitrary<string>,
  gap: fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  return fc
    .array(
      fc.tuple(fc.oneof({ weight: 3, arbitrary: word }, { weight: 1, arbitrary: value }), gap),
      { minLength: 1, maxLength: 30 },
    )
    .map((parts) => parts.map(([w, g]) => w + g).join(''));
}

/** The option sets every shortcut differential runs under. */
export const SHIPPED_AND_PII_REDACTED: [string, GuardOptions][] = [
  ['as shipped', {}],
  ['with PII redacted', { policy: { pii: 'redact' } }],
];

/**
 * The differential every shortcut of issue 19 §3 is held to, as an `it` per option set of
 * `SHIPPED_AND_PII_REDACTED`: for any text of `texts` split by any `sizes`, every push's
 * result and hold, and the end's, equal those of the same guard with the shortcut off.
 * Call it inside a `describe`; `title` gets the option set's name appended.
 */
export function shortcutDifferential(
  title: string,
  shortcut: { enabled: boolean },
  texts: fc.Arbitrary<string>,
  sizes: fc.Arbitrary<number[]>,
  pack: CompiledPack = getCorePack(),
): void {
  it.each(SHIPPED_AND_PII_REDACTED)(`${title} (%s)`, { timeout: 300_000 }, (_how, options) => {
    fc.assert(
      fc.property(texts, sizes, (text, lengths) => {
        const chunks = splitBySizes(text, lengths);
        expect(stepsWithShortcut(shortcut, true, pack, chunks, options)).toEqual(
          stepsWithShortcut(shortcut, false, pack, chunks, options),
        );
      }),
      { numRuns: Math.ceil(PROPERTY_RUNS / 2) },
    );
  });
}
