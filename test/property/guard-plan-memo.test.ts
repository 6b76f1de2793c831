/**
 * A pack's plan is remembered for the options object last asked for (guard-plan.ts
 * `lastAsked`, issue 19 §5: a history load asks once per message with one object).
 * Differential: whatever a caller does to its options objects between two guards
 * (changes a policy entry in place, swaps the policy, toggles `alwaysOnOnly` or the
 * policy mode, adds a conversation whose flags change), the plan a guard gets runs
 * exactly the rules and actions that the options hold at that moment
 * (active-rules.ts, computed fresh), in the same scanner sets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activeRules, scannerRuleSets } from '../../src/core/guard/active-rules.ts';
import { ConversationSession } from '../../src/core/guard/conversation-session.ts';
import { type GuardPlan, guardPlan } from '../../src/core/guard/guard-plan.ts';
import type { GuardOptions } from '../../src/core/guard/stream-guard.ts';
import { compileGuardPack } from '../../src/core/rules/builtin-packs.ts';
import type { CompiledPack, CompiledRule } from '../../src/core/rules/compile-pack.ts';
import { RULE_ACTIONS, RULE_KINDS } from '../../src/core/rules/rule.ts';
import { PROPERTY_RUNS } from '../support/text-arbitraries.ts';

/** The flag the built-in injection rules escalate on (packs/injection.json `whenFlag`). */
const FLAG = 'injection-suspected';

type Step =
  | { op: 'ask'; which: number }
  | { op: 'setEntry'; which: number; kind: number; action: number }
  | { op: 'deleteEntry'; which: number; kind: number }
  | { op: 'newPolicy'; which: number }
  | { op: 'dropPolicy'; which: number }
  | { op: 'alwaysOnOnly'; which: number; value: boolean }
  | { op: 'policyMode'; which: number; value: 'floor' | 'set' | undefined }
  | { op: 'session'; which: number; raise: boolean; drop: boolean };

const which = fc.integer({ min: 0, max: 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('ask' as const), which }),
  fc.record({
    op: fc.constant('setEntry' as const),
    which,
    kind: fc.integer({ min: 0, max: RULE_KINDS.length - 1 }),
    action: fc.integer({ min: 0, max: RULE_ACTIONS.length }),
  }),
  fc.record({
    op: fc.constant('deleteEntry' as const),
    which,
    kind: fc.integer({ min: 0, max: RULE_KINDS.length - 1 }),
  }),
  fc.record({ op: fc.constant('newPolicy' as const), which }),
  fc.record({ op: fc.constant('dropPolicy' as const), which }),
  fc.record({ op: fc.constant('alwaysOnOnly' as const), which, value: fc.boolean() }),
  fc.record({
    op: fc.constant('policyMode' as const),
    which,
    value: fc.constantFrom('floor' as const, 'set' as const, undefined),
  }),
  fc.record({
    op: fc.constant('session' as const),
    which,
    raise: fc.boolean(),
    drop: fc.boolean(),
  }),
);

/** Applies one step to the options objects (in place, as a careless caller might). */
function apply(options: GuardOptions[], s: Step): void {
  const o = options[s.which] as GuardOptions;
  switch (s.op) {
    case 'ask':
      return;
    case 'setEntry': {
      // An action index past the list writes `undefined` (an entry that is there but unset).
      o.policy ??= {};
      o.policy[RULE_KINDS[s.kind]!] = RULE_ACTIONS[s.action];
      return;
    }
    case 'deleteEntry':
      if (o.policy !== undefined) delete o.policy[RULE_KINDS[s.kind]!];
      return;
    case 'newPolicy':
      o.policy = { ...o.policy };
      return;
    case 'dropPolicy':
      delete o.policy;
      return;
    case 'alwaysOnOnly':
      o.alwaysOnOnly = s.value;
      return;
    case 'policyMode':
      if (s.value === undefined) delete o.policyMode;
      else o.policyMode = s.value;
      return;
    case 'session':
      if (s.drop) delete o.session;
      else {
        o.session ??= new ConversationSession();
        o.session.completeTurn(new Map(s.raise ? [[FLAG, 1]] : []));
      }
      return;
  }
}

const ids = (rules: readonly CompiledRule[] | undefined) => (rules ?? []).map((r) => r.id);

/** What the plan runs, next to what the options hold now, computed fresh. */
function expectPlanOf(pack: CompiledPack, plan: GuardPlan, options: GuardOptions): void {
  expect([...plan.actions].map(([rule, action]) => [rule.id, action])).toEqual(
    activeRules(pack, options).map(([rule, action]) => [rule.id, action]),
  );
  const sets = scannerRuleSets(pack, options);
  expect(ids(plan.seen?.rules)).toEqual(ids(sets.seen));
  expect(ids(plan.written?.rules)).toEqual(ids(sets.written));
  expect(ids(plan.flagging?.rules)).toEqual(ids(sets.flagging));
}

describe('guard plans remembered per options object', () => {
  // A pack of its own (no plan of another test's guards), shared by the runs: plans a
  // run leaves behind are keyed by what their options held, so they may serve the next.
  const pack = compileGuardPack();

  it('a plan always runs what its options hold when asked (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 24 }), (steps) => {
        const options: GuardOptions[] = [{ policy: { secret: 'flag' } }, {}];
        for (const s of steps) {
          apply(options, s);
          const o = options[s.which] as GuardOptions;
          expectPlanOf(pack, guardPlan(pack, o), o);
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('the same unchanged object gets the same plan object', () => {
    const options: GuardOptions = { policy: { secret: 'flag', pii: 'block' } };
    const plan = guardPlan(pack, options);
    expect(guardPlan(pack, options)).toBe(plan);
    // A changed entry, in place, is a new plan; back again, the keyed one.
    options.policy!.secret = 'redact';
    expect(guardPlan(pack, options)).not.toBe(plan);
    options.policy!.secret = 'flag';
    expect(guardPlan(pack, options)).toBe(plan);
  });
});
