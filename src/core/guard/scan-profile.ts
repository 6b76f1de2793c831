/**
 * Opt-in per-rule cost counters for the scanners (issue 19 §3: "a pack author
 * sees what a rule costs"; `npm run bench -- --profile`).
 *
 * Pass a ScanProfile as `GuardOptions.profile`; every scanner of the guard then
 * counts, per rule id, the threads it starts (spawns), the ones that survive
 * their first units (allocated threads), the DFA steps spent on the rule
 * (threads and partial-keyword checks alike) and the validator calls with
 * their wall time. Without a profile the scanner runs exactly the code it runs
 * today: the counting lives in wrappers installed by the constructor only when
 * a profile is given (`profiledRules`, `Scanner` constructor), never in a
 * branch of the hot loops. Verdicts never change: the wrappers forward every
 * call unchanged.
 */
import type { LazyDfa } from '../regex/lazy-dfa.ts';
import type { UnitKind } from '../regex/nfa.ts';

export interface RuleCost {
  /** Thread starts: candidate starts the scanner tried for this rule. */
  spawns: number;
  /** Starts that survived their first units and became live threads. */
  threads: number;
  /** DFA transitions taken for this rule. */
  steps: number;
  /** Validator / allow-list calls (a thread that accepted). */
  validations: number;
  /** Time in those calls, in the profile clock's unit (milliseconds for `performance.now`). */
  validateTime: number;
}

export class ScanProfile {
  private readonly costs = new Map<string, RuleCost>();

  /**
   * `clock` times the validators (the core reads no clock of its own; the
   * bench passes `performance.now`). Without one, validator time stays 0.
   */
  constructor(readonly clock: (() => number) | null = null) {}

  /** The counters of rule `id` (created at first use). */
  of(id: string): RuleCost {
    let cost = this.costs.get(id);
    if (cost === undefined) {
      cost = { spawns: 0, threads: 0, steps: 0, validations: 0, validateTime: 0 };
      this.costs.set(id, cost);
    }
    return cost;
  }

  /** Every rule counted so far, by id. */
  entries(): [string, RuleCost][] {
    return [...this.costs.entries()];
  }
}

/** A rule as the scanner reads it (the subset of ScanRule that is wrapped). */
interface ProfiledRuleShape {
  readonly id: string;
  readonly dfa: LazyDfa;
  readonly accept: (text: string, before?: string) => { ok: boolean; host?: string };
}

/**
 * The automaton with every step counted. Forwards to the rule's own DFA, which
 * is read only when first needed (a loaded pack builds a keyword rule's
 * automaton on first use, inside a scan).
 */
class CountingDfa {
  private inner: LazyDfa | null = null;

  constructor(
    private readonly rule: ProfiledRuleShape,
    private readonly cost: RuleCost,
  ) {}

  private get dfa(): LazyDfa {
    this.inner ??= this.rule.dfa;
    return this.inner;
  }

  start(prev: UnitKind): number {
    return this.dfa.start(prev);
  }

  step(state: number, g: number): number {
    this.cost.steps++;
    return this.dfa.step(state, g);
  }

  minDist(state: number): number {
    return this.dfa.minDist(state);
  }

  cannotExtend(state: number): boolean {
    return this.dfa.cannotExtend(state);
  }

  settledAcceptance(state: number): number {
    return this.dfa.settledAcceptance(state);
  }

  acceptsAtEnd(state: number): boolean {
    return this.dfa.acceptsAtEnd(state);
  }
}

/**
 * `rules` with counting automata and timed validators, every other field read
 * through to the original (same order, so rule indexes are unchanged).
 */
export function profiledRules<R extends ProfiledRuleShape>(
  rules: readonly R[],
  profile: ScanProfile,
): { rules: R[]; costs: RuleCost[] } {
  const costs = rules.map((rule) => profile.of(rule.id));
  const wrapped = rules.map((rule, i) => {
    const cost = costs[i] as RuleCost;
    // The class has the automaton's public surface; its private fields are not needed.
    const dfa = new CountingDfa(rule, cost) as unknown as LazyDfa;
    const clock = profile.clock;
    const accept = (text: string, before?: string): { ok: boolean; host?: string } => {
      cost.validations++;
      if (clock === null) return rule.accept(text, before);
      const t = clock();
      try {
        return rule.accept(text, before);
      } finally {
        cost.validateTime += clock() - t;
      }
    };
    const proxy: R = Object.create(rule) as R;
    Object.defineProperty(proxy, 'dfa', { value: dfa });
    Object.defineProperty(proxy, 'accept', { value: accept });
    return proxy;
  });
  return { rules: wrapped, costs };
}
