/**
 * A rule subset whose keyword rules lie in an automaton already built gets a
 * view of it (keyword-automata.ts, KeywordAutomaton.restrictedTo). A guard over
 * the subset must find, hold and release exactly what it does with the
 * subset's own automaton: for any text and any way to cut it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runToEnd } from '../../../src/core/guard/run-to-end.ts';
import {
  type GuardOptions,
  StreamGuard,
  scannerRuleSets,
} from '../../../src/core/guard/stream-guard.ts';
import { warmKeywordAutomataSteps } from '../../../src/core/guard/warm-up.ts';
import { outgoingScanOptions } from '../../../src/core/outgoing/outgoing-dlp.ts';
import { builtinPackJson, compileGuardPack } from '../../../src/core/rules/builtin-packs.ts';
import type { CompiledPack } from '../../../src/core/rules/compiled-pack.ts';
import {
  DEFAULT_INCOMING_POLICY,
  DEFAULT_OUTGOING_POLICY,
} from '../../../src/background/default-settings.ts';
import {
  PROPERTY_RUNS,
  cut,
  cutsArbitrary,
  textArbitrary,
} from '../../support/text-arbitraries.ts';

const sending = outgoingScanOptions(DEFAULT_OUTGOING_POLICY);
const answering: GuardOptions = { policy: { ...DEFAULT_INCOMING_POLICY } };

/** The rules a guard with `options` changes text with, read as a person sees it (stream-guard.ts). */
function changingRules(pack: CompiledPack, options: GuardOptions) {
  return scannerRuleSets(pack, options).seen;
}

/** A pack whose automata were built for both policies, the larger rule sets first. */
const shared = compileGuardPack();
runToEnd(warmKeywordAutomataSteps(shared, [sending, answering]));
/** The same rules, each rule set with an automaton of its own. */
const own = compileGuardPack();

function run(pack: CompiledPack, options: GuardOptions, chunks: string[]) {
  const guard = new StreamGuard(pack, options);
  return [...chunks.map((chunk) => guard.push(chunk)), guard.end()].map((r) => ({
    emit: r.emit,
    events: r.events,
    blocked: r.blocked,
  }));
}

describe('keyword automata shared between rule sets', () => {
  it('serves the send policy’s rules from the answer policy’s automaton', () => {
    const view = shared.keywordAutomaton(changingRules(shared, sending));
    const base = shared.keywordAutomaton(changingRules(shared, answering));
    expect(view).not.toBe(base);
    expect(view?.goto).toBe(base?.goto);
    const separate = own.keywordAutomaton(changingRules(own, sending));
    expect(separate?.goto).not.toBe(own.keywordAutomaton(changingRules(own, answering))?.goto);
    // Only the subset's keywords are reported.
    expect(new Set(view?.keywords)).toEqual(new Set(separate?.keywords));
  });

  it(
    'guards any text, cut anywhere, as the subset’s own automaton does',
    { timeout: 600_000 },
    () => {
      fc.assert(
        fc.property(textArbitrary(builtinPackJson()), cutsArbitrary, (text, cuts) => {
          const chunks = cut(text, cuts);
          expect(run(shared, sending, chunks)).toEqual(run(own, sending, chunks));
        }),
        { numRuns: PROPERTY_RUNS },
      );
    },
  );
});
