/**
 * keyword-presence.ts: a text without a keyword of any active keyword rule is
 * scanned by the rules without keywords exactly as by all rules (what lets a
 * page's first request go before the pack's keyword automata are built).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldByUnit, foldText, foldedUnits } from '../../../src/core/guard/keyword-automaton.ts';
import { keywordOccursIn } from '../../../src/core/guard/keyword-presence.ts';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import type { GuardOptions } from '../../../src/core/guard/stream-guard.ts';
import { outgoingScanOptions } from '../../../src/core/outgoing/outgoing-dlp.ts';
import { builtinPackJson, getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import {
  DEFAULT_INCOMING_POLICY,
  DEFAULT_OUTGOING_POLICY,
} from '../../../src/background/default-settings.ts';
import { PROPERTY_RUNS, textArbitrary } from '../../support/text-arbitraries.ts';

const pack = getCorePack();
const policies: [string, GuardOptions][] = [
  ['send', outgoingScanOptions(DEFAULT_OUTGOING_POLICY)],
  ['answer', { policy: { ...DEFAULT_INCOMING_POLICY } }],
];

/** What a whole-text scan reports and releases. */
function scan(text: string, options: GuardOptions) {
  const { output, events, blocked } = scanText(pack, text, options);
  return { output, events, blocked };
}

/** The text as written, or with its letters' case changed (keywords are matched folded). */
const casedText = fc
  .tuple(textArbitrary(builtinPackJson()), fc.constantFrom('as is', 'upper', 'swapped'))
  .map(([text, how]) => {
    if (how === 'upper') return text.toUpperCase();
    if (how === 'as is') return text;
    return [...text]
      .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
      .join('');
  });

describe('keyword presence', () => {
  it('folds every code unit as the keyword automaton’s fold table does', () => {
    const differing: number[] = [];
    foldedUnits(); // `foldText` folds through the table once it is built.
    for (let unit = 0; unit < 0x10000; unit++) {
      const text = String.fromCharCode(unit);
      if (foldByUnit(text) !== foldText(text)) differing.push(unit);
    }
    expect(differing).toEqual([]);
  });

  it('sees a keyword whatever its case, and nothing in text without one', () => {
    const [, sending] = policies[0] as [string, GuardOptions];
    const rule = pack.rules.find((r) => r.id === 'github-pat');
    const keyword = rule?.keywords?.[0] ?? '';
    expect(keyword).not.toBe('');
    expect(keywordOccursIn(pack, sending, [`see ${keyword.toUpperCase()}`])).toBe(true);
    expect(keywordOccursIn(pack, sending, ['', `x${keyword}`])).toBe(true);
    expect(keywordOccursIn(pack, sending, ['go'])).toBe(false);
    // A rule the policy switches off does not count.
    const off = { ...sending, policy: { ...sending.policy, secret: 'off' as const } };
    expect(keywordOccursIn(pack, off, [keyword])).toBe(false);
  });

  for (const [name, options] of policies) {
    it(
      `for any text, the ${name} policy's rules without keywords find what all find when no keyword occurs`,
      { timeout: 600_000 },
      () => {
        let keywordFree = 0;
        let keywordFreeFindings = 0;
        fc.assert(
          fc.property(casedText, (text) => {
            const all = scan(text, options);
            if (keywordOccursIn(pack, options, [text])) return;
            keywordFree++;
            if (all.events.length > 0) keywordFreeFindings++;
            expect(scan(text, { ...options, alwaysOnOnly: true })).toEqual(all);
          }),
          { numRuns: PROPERTY_RUNS },
        );
        // The property saw texts it applies to, with findings among them.
        expect(keywordFree).toBeGreaterThan(PROPERTY_RUNS / 20);
        expect(keywordFreeFindings).toBeGreaterThan(0);
      },
    );
  }
});
