/**
 * Which main-thread long tasks the guard causes (issue 4 "Benchmark": "main-thread
 * long tasks caused by the guard (target 0)").
 *
 * Counting the page's long tasks with and without the extension and subtracting
 * mixes the guard with noise: on this 2-core machine the page's own layout of a
 * 500k-character text takes 40–60 ms per frame, so either run sees 0–4 long tasks
 * from layout alone. This module instead reads a Chromium trace of the run with the
 * extension (categories `toplevel` for task boundaries and
 * `disabled-by-default-v8.cpu_profiler` for JavaScript samples, one clock) and, for
 * every main-thread task of the page's renderer, adds up the samples whose stack
 * holds one of the guard's scripts. Of the long tasks (≥ 50 ms, the Long Tasks API's
 * threshold):
 * - `guard_long_tasks` counts those the guard caused: guard code ran in the task,
 *   and without the guard's share the task would have been shorter than 50 ms;
 * - `long_tasks_touched_by_guard` counts every one in which any guard code ran at
 *   all, an upper bound: the page's own long task counts even when the guard spent
 *   a millisecond in it (e.g. our MAIN-world hook handing the page its data, after
 *   which the page's parsing runs in the same task).
 * The profiler's wall-clock samples charge time the OS took the thread away to
 * whatever ran then, so measure on an otherwise idle machine.
 */

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  id?: string;
  args?: { data?: unknown };
}

export interface LongTaskAttribution {
  /** Main-thread tasks of the page's renderer of at least `thresholdMs`. */
  long_tasks: number;
  /** Those the guard caused: long only with the guard's share (the target: 0). */
  guard_long_tasks: number;
  /** Those in which any guard code ran (an upper bound of the above). */
  long_tasks_touched_by_guard: number;
  /** Guard time summed over all tasks, from the samples. */
  guard_ms: number;
  /** The longest task in which guard code ran, and the guard's share of it. */
  longest_guard_task_ms: number;
  longest_guard_task_guard_ms: number;
}

interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { url?: string };
}

interface ChunkData {
  cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
  timeDeltas?: number[];
}

interface Profile {
  pid: number;
  tid: number;
  startTime: number;
  nodes: Map<number, ProfileNode>;
  samples: number[];
  deltas: number[];
}

const TASK_NAMES = new Set(['ThreadControllerImpl::RunTask', 'RunTask']);

function collectProfiles(events: readonly TraceEvent[]): Profile[] {
  const profiles = new Map<string, Profile>();
  for (const event of events) {
    if (event.name !== 'Profile' || event.ph !== 'P') continue;
    const data = event.args?.data as { startTime?: number } | undefined;
    profiles.set(`${event.pid}:${event.id}`, {
      pid: event.pid,
      tid: event.tid,
      startTime: data?.startTime ?? event.ts,
      nodes: new Map(),
      samples: [],
      deltas: [],
    });
  }
  for (const event of events) {
    if (event.name !== 'ProfileChunk') continue;
    const profile = profiles.get(`${event.pid}:${event.id}`);
    const data = event.args?.data as ChunkData | undefined;
    if (!profile || !data) continue;
    for (const node of data.cpuProfile?.nodes ?? []) profile.nodes.set(node.id, node);
    profile.samples.push(...(data.cpuProfile?.samples ?? []));
    profile.deltas.push(...(data.timeDeltas ?? []));
  }
  return [...profiles.values()];
}

/** Whether each node's stack (the node or an ancestor) matches `matches`. */
function stackMatches(profile: Profile, matches: (url: string) => boolean): Map<number, boolean> {
  const memo = new Map<number, boolean>();
  const visit = (id: number): boolean => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = profile.nodes.get(id);
    memo.set(id, false); // guards against a malformed cycle
    const result =
      node !== undefined &&
      (matches(node.callFrame.url ?? '') || (node.parent !== undefined && visit(node.parent)));
    memo.set(id, result);
    return result;
  };
  for (const id of profile.nodes.keys()) visit(id);
  return memo;
}

/** Top-level tasks of one thread, nested RunTask events folded into their parent. */
function topLevelTasks(events: readonly TraceEvent[], pid: number, tid: number): TraceEvent[] {
  const tasks = events
    .filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && TASK_NAMES.has(e.name))
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const top: TraceEvent[] = [];
  let end = -Infinity;
  for (const task of tasks) {
    if (task.ts < end) continue;
    top.push(task);
    end = task.ts + (task.dur ?? 0);
  }
  return top;
}

export function attributeLongTasks(
  events: readonly TraceEvent[],
  isGuard: (url: string) => boolean,
  isPage: (url: string) => boolean,
  thresholdMs = 50,
): LongTaskAttribution {
  const profile = collectProfiles(events).find((p) =>
    [...p.nodes.values()].some((node) => isPage(node.callFrame.url ?? '')),
  );
  if (profile === undefined) throw new Error('the trace holds no CPU profile of the page');
  const guardNode = stackMatches(profile, isGuard);
  const tasks = topLevelTasks(events, profile.pid, profile.tid);
  const guardUs = new Array<number>(tasks.length).fill(0);
  let time = profile.startTime;
  let task = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.deltas[i] ?? 0;
    // A sample stands for the interval up to the next one.
    const weight = profile.deltas[i + 1] ?? 0;
    if (!guardNode.get(profile.samples[i] ?? -1)) continue;
    while (task < tasks.length && time >= (tasks[task]?.ts ?? 0) + (tasks[task]?.dur ?? 0)) task++;
    const current = tasks[task];
    if (current !== undefined && time >= current.ts) guardUs[task] = (guardUs[task] ?? 0) + weight;
  }
  const result: LongTaskAttribution = {
    long_tasks: 0,
    guard_long_tasks: 0,
    long_tasks_touched_by_guard: 0,
    guard_ms: 0,
    longest_guard_task_ms: 0,
    longest_guard_task_guard_ms: 0,
  };
  tasks.forEach((t, i) => {
    const ms = (t.dur ?? 0) / 1000;
    const guardMs = (guardUs[i] ?? 0) / 1000;
    result.guard_ms += guardMs;
    if (ms >= thresholdMs) {
      result.long_tasks++;
      if (guardMs > 0) result.long_tasks_touched_by_guard++;
      if (guardMs > 0 && ms - guardMs < thresholdMs) result.guard_long_tasks++;
    }
    if (guardMs > 0 && ms > result.longest_guard_task_ms) {
      result.longest_guard_task_ms = ms;
      result.longest_guard_task_guard_ms = guardMs;
    }
  });
  const round1 = (value: number) => Math.round(value * 10) / 10;
  result.guard_ms = round1(result.guard_ms);
  result.longest_guard_task_ms = round1(result.longest_guard_task_ms);
  result.longest_guard_task_guard_ms = round1(result.longest_guard_task_guard_ms);
  return result;
}
