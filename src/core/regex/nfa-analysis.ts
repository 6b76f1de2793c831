import { isEmpty } from './char-set.ts';
import type { Nfa, NfaState } from './nfa.ts';

/**
 * For every state, the least number of code units still to consume before the
 * final state can be reached (conditions treated as satisfiable). Infinity
 * marks states that can never reach the final state: the matcher drops them, so
 * a non-empty state set always means "live prefix".
 */
export function distancesToFinal(nfa: Nfa): Float64Array {
  const n = nfa.states.length;
  const reverseEps: number[][] = Array.from({ length: n }, () => []);
  const reverseUnit: number[][] = Array.from({ length: n }, () => []);
  nfa.states.forEach((st, i) => {
    for (const t of st.eps) reverseEps[t]?.push(i);
    for (const c of st.cond) reverseEps[c.to]?.push(i);
    if (st.set && !isEmpty(st.set)) reverseUnit[st.to]?.push(i);
  });
  const dist = new Float64Array(n).fill(Infinity);
  // 0-1 BFS: epsilon edges cost 0, unit edges cost 1.
  const deque: number[] = [nfa.final];
  dist[nfa.final] = 0;
  let head = 0;
  const front: number[] = [];
  while (front.length > 0 || head < deque.length) {
    const s = front.length > 0 ? (front.pop() as number) : (deque[head++] as number);
    const d = dist[s] as number;
    for (const p of reverseEps[s] ?? []) {
      if ((dist[p] as number) > d) {
        dist[p] = d;
        front.push(p);
      }
    }
    for (const p of reverseUnit[s] ?? []) {
      if ((dist[p] as number) > d + 1) {
        dist[p] = d + 1;
        deque.push(p);
      }
    }
  }
  return dist;
}

/** Layers longer than this mean "unbounded" for length analysis. */
export const LENGTH_ANALYSIS_LIMIT = 65_537;

function closure(
  states: readonly NfaState[],
  seeds: Iterable<number>,
  dist: Float64Array,
): number[] {
  const seen = new Set<number>();
  const stack = [...seeds];
  while (stack.length > 0) {
    const s = stack.pop() as number;
    if (seen.has(s) || dist[s] === Infinity) continue;
    seen.add(s);
    const st = states[s] as NfaState;
    stack.push(...st.eps);
    for (const c of st.cond) stack.push(c.to);
  }
  return [...seen].sort((a, b) => a - b);
}

/**
 * The longest match in code units (Infinity when unbounded), found by stepping
 * the set of states reachable after exactly k units; a repeated set means a loop.
 */
export function maxMatchLength(nfa: Nfa, dist: Float64Array): number {
  let layer = closure(nfa.states, [nfa.start], dist);
  let longest = layer.includes(nfa.final) ? 0 : -1;
  const seenLayers = new Set<string>();
  for (let k = 1; k <= LENGTH_ANALYSIS_LIMIT; k++) {
    const next: number[] = [];
    for (const s of layer) {
      const st = nfa.states[s] as NfaState;
      if (st.set && !isEmpty(st.set)) next.push(st.to);
    }
    layer = closure(nfa.states, next, dist);
    if (layer.length === 0) return longest;
    const key = layer.join(',');
    if (seenLayers.has(key)) return Infinity;
    seenLayers.add(key);
    if (layer.includes(nfa.final)) longest = k;
  }
  return Infinity;
}
