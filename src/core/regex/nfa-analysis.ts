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

/**
 * The longest match in code units, or Infinity when the automaton has a cycle
 * (a `*`, `+` or `{n,}`). Thompson NFAs built from bounded repetitions are
 * acyclic, so this is one longest-path pass in topological order: O(states).
 */
export function maxMatchLength(nfa: Nfa, dist: Float64Array): number {
  const n = nfa.states.length;
  const cache: ([number, number][] | undefined)[] = new Array(n);
  const successors = (s: number): [number, number][] => {
    const known = cache[s];
    if (known !== undefined) return known;
    const st = nfa.states[s] as NfaState;
    const out: [number, number][] = [];
    for (const t of st.eps) if (dist[t] !== Infinity) out.push([t, 0]);
    for (const c of st.cond) if (dist[c.to] !== Infinity) out.push([c.to, 0]);
    if (st.set && !isEmpty(st.set) && dist[st.to] !== Infinity) out.push([st.to, 1]);
    cache[s] = out;
    return out;
  };
  if (dist[nfa.start] === Infinity) return -1;
  // Iterative DFS: post-order is a reverse topological order; reaching a grey state is a cycle.
  const colour = new Uint8Array(n);
  const order: number[] = [];
  const stack: [number, [number, number][], number][] = [[nfa.start, successors(nfa.start), 0]];
  colour[nfa.start] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as [number, [number, number][], number];
    const [s, next, i] = top;
    if (i < next.length) {
      top[2] = i + 1;
      const [t] = next[i] as [number, number];
      if (colour[t] === 1) return Infinity;
      if (colour[t] === 0) {
        colour[t] = 1;
        stack.push([t, successors(t), 0]);
      }
    } else {
      colour[s] = 2;
      order.push(s);
      stack.pop();
    }
  }
  // Longest path to the final state, from the sinks up.
  const longest = new Float64Array(n).fill(-Infinity);
  for (const s of order) {
    if (s === nfa.final) longest[s] = Math.max(longest[s] as number, 0);
    for (const [t, w] of successors(s)) {
      const via = (longest[t] as number) + w;
      if (via > (longest[s] as number)) longest[s] = via;
    }
  }
  return longest[nfa.start] as number;
}
