/**
 * DESIGN.md §3.10, issue 17 §3: a secret is redacted whole. For every secret
 * and PII rule of the built-in packs: a value generated from the rule's own
 * pattern (at and past its length bounds), in a context people and models write
 * (.env, export, YAML, JSON, TOML, Python, HTTP headers, a URL query, a code
 * fence, Chinese and English prose), disguised by what a renderer hides (an
 * invisible code point, inline Markdown, an HTML comment, character references),
 * streamed in random chunks through every built-in pack merged as the extension
 * runs them: no 8-unit fragment of the secret as a person sees it may be visible
 * in the output as a person sees it, and the stream is not blocked without a
 * blocking rule or fails closed.
 *
 * Each run draws one rule, one sample, one context, one transformation and one
 * chunking, so PROPERTY_RUNS (10,000 in CI) covers every rule many times
 * without multiplying the cost by the number of rules. A drawn sample the rule
 * alone does not redact (its validator's choice: that is recall, not this
 * property) or whose secret is under 8 units is skipped (`fc.pre`).
 *
 * To see every failing class at once rather than the first counterexample:
 * `npx tsx test/support/redacted-whole-survey.ts [runs] [seed]`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TARGET_RULES,
  builtinPack,
  caseDrawArbitrary,
  caseOf,
  runCase,
} from '../support/redacted-whole.ts';
import { PROPERTY_RUNS } from '../support/text-arbitraries.ts';

describe('a secret is redacted whole (DESIGN.md §3.10)', () => {
  it('covers every secret and PII rule that changes text', () => {
    const kinds = new Set(TARGET_RULES.map((r) => r.kind));
    expect([...kinds].sort()).toEqual(['pii', 'secret']);
    expect(TARGET_RULES.length).toBeGreaterThan(100);
  });

  it(
    'no 8-unit fragment of a generated secret survives, in any context, disguise or chunking',
    { timeout: 900_000 },
    () => {
      builtinPack();
      fc.assert(
        fc.property(caseDrawArbitrary, (draw) => {
          const sample = caseOf(draw);
          fc.pre(sample !== undefined);
          const outcome = runCase(sample);
          if (outcome.failure !== undefined) throw new Error(`\n${outcome.failure}`);
        }),
        // A fixed seed by default, so CI is not a lottery over classes too rare for one
        // run of 10,000 to meet every time. CSG_PROPERTY_SEED explores other seeds, and
        // test/support/redacted-whole-survey.ts sweeps many: the last class it found (an
        // unquoted keyword argument's closing comma counted into a password's entropy,
        // secrets 1.8.2) is fixed, and ~410,000 draws over 18 seeds found no other.
        { numRuns: PROPERTY_RUNS, seed: Number(process.env.CSG_PROPERTY_SEED ?? 20261202) },
      );
    },
  );
});
