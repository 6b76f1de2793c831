import type { Nfa } from './nfa.ts';

/**
 * For every state, the least number of code units still to consume before the
 * final state can be reached (conditions treated as satisfiable). Infinity
 * marks states that can never reach the final state: the matcher drops them, so
 * a non-empty state set always means "live prefix".
 *
 * One 0-1 BFS over the reversed edges (epsilon and conditional edges cost 0,
 * unit edges 1), with the reverse graph in typed arrays: linear, and no
 * allocation per state.
 */
export function distancesToFinal(nfa: Nfa): Float64Array {
  const n = nfa.stateCount;
  // Reverse adjacency in compressed rows: predecessors of t are rev[revStart[t] .. revStart[t+1]],
  // a predecessor p stored as 2p (free edge) or 2p + 1 (unit edge).
  const revStart = new Int32Array(n + 1);
  const { epsStart, epsTo, condStart, condTo, setOf, to } = nfa;
  for (let e = 0; e < epsTo.length; e++) (revStart[(epsTo[e] as number) + 1] as number)++;
  for (let e = 0; e < condTo.length; e++) (revStart[(condTo[e] as number) + 1] as number)++;
  for (let s = 0; s < n; s++)
    if ((setOf[s] as number) >= 0) (revStart[(to[s] as number) + 1] as number)++;
  for (let s = 0; s < n; s++)
    revStart[s + 1] = (revStart[s + 1] as number) + (revStart[s] as number);
  const fill = revStart.slice(0, n);
  const rev = new Int32Array(revStart[n] as number);
  for (let s = 0; s < n; s++) {
    for (let e = epsStart[s] as number; e < (epsStart[s + 1] as number); e++) {
      rev[(fill[epsTo[e] as number] as number)++] = 2 * s;
    }
    for (let e = condStart[s] as number; e < (condStart[s + 1] as number); e++) {
      rev[(fill[condTo[e] as number] as number)++] = 2 * s;
    }
    if ((setOf[s] as number) >= 0) rev[(fill[to[s] as number] as number)++] = 2 * s + 1;
  }
  const dist = new Float64Array(n).fill(Infinity);
  // Deque in one array of 2n slots: zero-cost relaxations go to the front, unit ones to the back.
  // Each state is pushed at most once per improvement; with 0/1 weights that is at most twice.
  const size = 2 * n + 2;
  const deque = new Int32Array(size);
  let head = n + 1;
  let tail = n + 1;
  deque[tail++] = nfa.final;
  dist[nfa.final] = 0;
  while (head !== tail) {
    const s = deque[head] as number;
    head = head + 1 === size ? 0 : head + 1;
    const d = dist[s] as number;
    for (let i = revStart[s] as number; i < (revStart[s + 1] as number); i++) {
      const packed = rev[i] as number;
      const p = packed >> 1;
      const via = d + (packed & 1);
      if ((dist[p] as number) > via) {
        dist[p] = via;
        if ((packed & 1) === 0) {
          head = head === 0 ? size - 1 : head - 1;
          deque[head] = p;
        } else {
          deque[tail] = p;
          tail = tail + 1 === size ? 0 : tail + 1;
        }
      }
    }
  }
  return dist;
}

/**
 * The longest match in code units, or Infinity when the live part of the
 * automaton has a cycle (a `*`, `+` or `{n,}`); -1 when nothing can match.
 * Acyclic automata take one longest-path pass in reverse topological order
 * (iterative DFS post-order): O(states + edges), typed arrays only.
 */
export function maxMatchLength(nfa: Nfa, dist: Float64Array): number {
  if (dist[nfa.start] === Infinity) return -1;
  const n = nfa.stateCount;
  const { epsStart, epsTo, condStart, condTo, setOf, to } = nfa;
  const colour = new Uint8Array(n);
  const longest = new Float64Array(n).fill(-Infinity);
  // DFS stack: a state and how many of its successors were visited. Successor k of s is
  // eps edge k, then cond edge k - eps, then (last) the unit edge.
  const stackState = new Int32Array(n);
  const stackNext = new Int32Array(n);
  stackState[0] = nfa.start;
  let depth = 1;
  colour[nfa.start] = 1;
  while (depth > 0) {
    const s = stackState[depth - 1] as number;
    const k = stackNext[depth - 1] as number;
    const eps = (epsStart[s + 1] as number) - (epsStart[s] as number);
    const cond = (condStart[s + 1] as number) - (condStart[s] as number);
    const unit = (setOf[s] as number) >= 0 ? 1 : 0;
    if (k < eps + cond + unit) {
      stackNext[depth - 1] = k + 1;
      const t =
        k < eps
          ? (epsTo[(epsStart[s] as number) + k] as number)
          : k < eps + cond
            ? (condTo[(condStart[s] as number) + k - eps] as number)
            : (to[s] as number);
      if (dist[t] === Infinity) continue;
      const c = colour[t] as number;
      if (c === 1) return Infinity;
      if (c === 0) {
        colour[t] = 1;
        stackState[depth] = t;
        stackNext[depth] = 0;
        depth++;
      }
      continue;
    }
    // Post-order: every live successor is finished, so its longest path is known.
    colour[s] = 2;
    depth--;
    let best = s === nfa.final ? 0 : -Infinity;
    for (let e = epsStart[s] as number; e < (epsStart[s + 1] as number); e++) {
      const via = longest[epsTo[e] as number] as number;
      if (via > best) best = via;
    }
    for (let e = condStart[s] as number; e < (condStart[s + 1] as number); e++) {
      const via = longest[condTo[e] as number] as number;
      if (via > best) best = via;
    }
    if (unit === 1) {
      const via = (longest[to[s] as number] as number) + 1;
      if (via > best) best = via;
    }
    longest[s] = best;
  }
  return longest[nfa.start] as number;
}
