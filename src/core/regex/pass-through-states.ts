/**
 * Removes pass-through states from a freshly built NFA: a state that consumes
 * nothing, has no conditional edge and exactly one epsilon edge is only a
 * detour (Thompson's construction makes one after every unit step and around
 * every group). Every edge into it is redirected to where its chain of such
 * states ends, and it is dropped. Languages, distances to the final state,
 * longest matches and cycles are unchanged (a chain is followed for free in
 * any closure, and a cycle made only of pass-through states, which could never
 * reach anything else, is kept as it is); the automaton gets about half as
 * many states, which every analysis, DFA closure and serialised pack pays for.
 */

/** An NFA under construction: edge lists, not yet grouped by source. */
export interface EdgeListNfa {
  start: number;
  final: number;
  setOf: Int32Array;
  to: Int32Array;
  epsFrom: Int32Array;
  epsTo: Int32Array;
  condFrom: Int32Array;
  condTo: Int32Array;
  condWhen: Int32Array;
}

export function removePassThroughStates(nfa: EdgeListNfa): EdgeListNfa {
  const n = nfa.setOf.length;
  const epsOut = new Int32Array(n);
  const onlyEps = new Int32Array(n).fill(-1);
  for (let e = 0; e < nfa.epsFrom.length; e++) {
    const s = nfa.epsFrom[e] as number;
    epsOut[s] = (epsOut[s] as number) + 1;
    onlyEps[s] = nfa.epsTo[e] as number;
  }
  const hasCond = new Uint8Array(n);
  for (let e = 0; e < nfa.condFrom.length; e++) hasCond[nfa.condFrom[e] as number] = 1;
  const passThrough = (s: number): boolean =>
    s !== nfa.start &&
    s !== nfa.final &&
    (nfa.setOf[s] as number) < 0 &&
    hasCond[s] === 0 &&
    epsOut[s] === 1;
  // Where each state's chain ends: itself unless it passes through.
  const end = new Int32Array(n).fill(-1);
  const state = new Uint8Array(n); // 0 new, 1 on the current chain, 2 resolved
  const chain: number[] = [];
  for (let s0 = 0; s0 < n; s0++) {
    if (state[s0] === 2) continue;
    let s = s0;
    while (state[s] === 0 && passThrough(s)) {
      state[s] = 1;
      chain.push(s);
      s = onlyEps[s] as number;
    }
    let target: number;
    if (state[s] === 2) target = end[s] as number;
    else if (state[s] === 1) {
      // A cycle of pass-through states: keep its states (each its own end).
      const from = chain.indexOf(s);
      for (const c of chain.splice(from)) {
        end[c] = c;
        state[c] = 2;
      }
      target = s;
    } else {
      target = s;
      end[s] = s;
      state[s] = 2;
    }
    for (const c of chain) {
      end[c] = target;
      state[c] = 2;
    }
    chain.length = 0;
  }
  // Keep the states that end their own chain, in their order.
  const index = new Int32Array(n).fill(-1);
  let kept = 0;
  for (let s = 0; s < n; s++) if (end[s] === s) index[s] = kept++;
  if (kept === n) return nfa;
  const renamed = (s: number): number => index[end[s] as number] as number;
  const setOf = new Int32Array(kept);
  const to = new Int32Array(kept);
  for (let s = 0; s < n; s++) {
    const i = index[s] as number;
    if (i < 0) continue;
    setOf[i] = nfa.setOf[s] as number;
    to[i] = (nfa.setOf[s] as number) >= 0 ? renamed(nfa.to[s] as number) : -1;
  }
  const epsFrom: number[] = [];
  const epsTo: number[] = [];
  for (let e = 0; e < nfa.epsFrom.length; e++) {
    const from = index[nfa.epsFrom[e] as number] as number;
    if (from < 0) continue; // the removed state's one edge
    epsFrom.push(from);
    epsTo.push(renamed(nfa.epsTo[e] as number));
  }
  const condFrom = new Int32Array(nfa.condFrom.length);
  const condTo = new Int32Array(nfa.condTo.length);
  for (let e = 0; e < nfa.condFrom.length; e++) {
    condFrom[e] = index[nfa.condFrom[e] as number] as number;
    condTo[e] = renamed(nfa.condTo[e] as number);
  }
  return {
    start: index[nfa.start] as number,
    final: index[nfa.final] as number,
    setOf,
    to,
    epsFrom: Int32Array.from(epsFrom),
    epsTo: Int32Array.from(epsTo),
    condFrom,
    condTo,
    condWhen: nfa.condWhen,
  };
}
