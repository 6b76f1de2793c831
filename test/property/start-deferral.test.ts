/**
 * Issue 19 §3: an always-on rule whose every match contains a rarer unit waits
 * for one and then starts its threads backwards within its bound
 * (start-deferral.ts, scanner.ts `backStart`). That must change nothing but
 * the cost: for any text and any split, every push releases the same text,
 * holds the same units and reports the same events as the same pack with its
 * starts made on time, also with the policy that makes e-mail addresses
 * text-changing (the rule then reads the text as a person sees it, hidden
 * units and HTML comments included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GuardOptions, StreamGuard } from '../../src/core/guard/stream-guard.ts';
import { type CompiledPack, compilePack } from '../../src/core/rules/compile-pack.ts';
import type { CompiledRule } from '../../src/core/rules/compiled-pack.ts';
import { createKeywordAutomata } from '../../src/core/rules/keyword-automata.ts';
import { runToEnd } from '../../src/core/guard/run-to-end.ts';
import type { RulePack } from '../../src/core/rules/rule.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';
import { shippedPacks } from '../support/shipped-packs.ts';

/**
 * The same pack with every rule started where it can begin (no deferral), with
 * keyword automata of its own: scanners cache their start tables per automaton.
 */
function withoutDeferral(pack: CompiledPack): CompiledPack {
  const rules = pack.rules.map(
    (rule) => Object.create(rule, { deferral: { value: null } }) as CompiledRule,
  );
  const steps = createKeywordAutomata();
  return {
    ...pack,
    rules,
    keywordAutomaton: (subset) => runToEnd(steps(subset)),
    keywordAutomatonSteps: steps,
  };
}

/** Pieces around the units deferred rules wait for, and what hides units from a reader. */
const AROUND_TRIGGERS = [
  '@',
  'a.b@',
  'user@example.com',
  'x-',
  '-us1',
  '123-45-',
  '[a]: ',
  '\n[',
  '**',
  '`',
  '\u200B',
  '<!-- ',
  ' -->',
  '&#64;',
  ' ',
  '\n',
  // Long hidden runs: a thread dies past HIDDEN_STRETCH times its bound, late or on time.
  '\u200B'.repeat(30),
  '**'.repeat(12),
  '<!--' + 'ab-'.repeat(10) + '-->',
];

function pushByPush(pack: CompiledPack, chunks: string[], options: GuardOptions): unknown[] {
  const guard = new StreamGuard(pack, options);
  const out: unknown[] = [];
  for (const chunk of chunks) {
    const r = guard.push(chunk);
    out.push([r.emit, r.events, guard.counters.held, r.blocked]);
  }
  const r = guard.end();
  out.push([r.emit, r.events, r.blocked]);
  return out;
}

const packs: [string, RulePack][] = shippedPacks().filter(([, spec]) =>
  compilePack(spec).rules.some((rule) => !rule.keyword && (rule.deferral ?? null) !== null),
);

describe('deferred starts', () => {
  it('some shipped pack has a deferred rule (else this test checks nothing)', () => {
    expect(packs.length).toBeGreaterThan(0);
  });

  describe.each(packs)('%s', (_name, spec) => {
    const pack = compilePack(spec);
    const plain = withoutDeferral(pack);
    const text = fc
      .array(fc.oneof(textArbitrary(spec), fc.constantFrom(...AROUND_TRIGGERS)), { maxLength: 8 })
      .map((parts) => parts.join(''));

    it.each([
      ['123' + '\u200B'.repeat(60) + '-45-6789', {}],
      ['123' + '**'.repeat(30) + '-45-6789 and 123' + '*'.repeat(30) + '-45-6789', {}],
      ['ab' + '\u200B'.repeat(3000) + 'c@example.com', { policy: { pii: 'redact' } }],
      ['0123456789abcdef0123456789abcdef' + '\u200B'.repeat(150) + '-us12', {}],
    ] as [string, GuardOptions][])(
      'change nothing where hidden units stretch a match past its bound: %#',
      (t, options) => {
        for (const size of [1, 4, 4096]) {
          const chunks = t.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
          expect(pushByPush(pack, chunks, options)).toEqual(pushByPush(plain, chunks, options));
        }
      },
    );

    it.each([
      ['as shipped', {}],
      ['with PII redacted', { policy: { pii: 'redact' } }],
    ] as [string, GuardOptions][])(
      'change nothing but the cost (%s)',
      { timeout: 300_000 },
      (_how, options) => {
        fc.assert(
          fc.property(text, cutsArbitrary, (t, fractions) => {
            const chunks = cut(t, fractions);
            expect(pushByPush(pack, chunks, options)).toEqual(pushByPush(plain, chunks, options));
          }),
          { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
        );
      },
    );
  });
});
