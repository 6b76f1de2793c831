/**
 * Which guard functions ran in each long task of a traced page (issue 19 "guard long
 * tasks 0"): long-task-attribution.ts counts the tasks the guard made long; this
 * names what ran in them, so a step can be split or paced (bench/page-profile.ts
 * `stream`). Same rules: main-thread top-level tasks of the page's renderer, a task
 * long from 50 ms, a sample standing for the interval up to the next one.
 */
import type { TraceEvent } from './long-task-attribution.ts';

interface Frame {
  functionName?: string;
  url?: string;
  lineNumber?: number;
}
interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: Frame;
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
const LONG_MS = 50;

function profilesOf(events: readonly TraceEvent[]): Profile[] {
  const byId = new Map<string, Profile>();
  for (const e of events) {
    if (e.name !== 'Profile' || e.ph !== 'P') continue;
    const data = e.args?.data as { startTime?: number } | undefined;
    byId.set(`${e.pid}:${e.id}`, {
      pid: e.pid,
      tid: e.tid,
      startTime: data?.startTime ?? e.ts,
      nodes: new Map(),
      samples: [],
      deltas: [],
    });
  }
  for (const e of events) {
    if (e.name !== 'ProfileChunk') continue;
    const p = byId.get(`${e.pid}:${e.id}`);
    const data = e.args?.data as
      | { cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] }
      | undefined;
    if (!p || !data) continue;
    for (const n of data.cpuProfile?.nodes ?? []) p.nodes.set(n.id, n);
    p.samples.push(...(data.cpuProfile?.samples ?? []));
    p.deltas.push(...(data.timeDeltas ?? []));
  }
  return [...byId.values()];
}

/** Top-level tasks of one thread, nested ones folded into their parent. */
function tasksOf(events: readonly TraceEvent[], pid: number, tid: number): TraceEvent[] {
  const sorted = events
    .filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && TASK_NAMES.has(e.name))
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const top: TraceEvent[] = [];
  let end = -Infinity;
  for (const task of sorted) {
    if (task.ts < end) continue;
    top.push(task);
    end = task.ts + (task.dur ?? 0);
  }
  return top;
}

interface TaskUse {
  startMs: number;
  ms: number;
  guardMs: number;
  inclusive: Map<string, number>;
}

/** Each long task with guard code: its length, the guard's share and its guard functions. */
export function longTaskReport(
  events: readonly TraceEvent[],
  base: string,
  pageUrl: string,
  top: number,
): string {
  const profile = profilesOf(events).find((p) =>
    [...p.nodes.values()].some((n) => (n.callFrame.url ?? '').startsWith(pageUrl)),
  );
  if (profile === undefined) return 'no profile of the page';
  const tasks = tasksOf(events, profile.pid, profile.tid);
  const uses: TaskUse[] = tasks.map((t) => ({
    startMs: (t.ts - profile.startTime) / 1000,
    ms: (t.dur ?? 0) / 1000,
    guardMs: 0,
    inclusive: new Map(),
  }));
  const name = (n: ProfileNode) => {
    const url = n.callFrame.url ?? '';
    const file = url.startsWith(base) ? url.slice(base.length) : url ? 'page' : '';
    return `${n.callFrame.functionName || '(anon)'} ${file}:${(n.callFrame.lineNumber ?? 0) + 1}`;
  };
  let time = profile.startTime;
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.deltas[i] ?? 0;
    const weight = (profile.deltas[i + 1] ?? 0) / 1000;
    const stack: ProfileNode[] = [];
    for (let n = profile.nodes.get(profile.samples[i] ?? -1); n !== undefined;) {
      stack.push(n);
      n = n.parent === undefined ? undefined : profile.nodes.get(n.parent);
    }
    if (!stack.some((n) => (n.callFrame.url ?? '').startsWith(base))) continue;
    while (at < tasks.length && time >= (tasks[at]?.ts ?? 0) + (tasks[at]?.dur ?? 0)) at++;
    const task = tasks[at];
    const use = uses[at];
    if (task === undefined || use === undefined || time < task.ts) continue;
    use.guardMs += weight;
    for (const key of new Set(stack.map(name))) {
      use.inclusive.set(key, (use.inclusive.get(key) ?? 0) + weight);
    }
  }
  const lines: string[] = [];
  for (const use of uses) {
    if (use.ms < LONG_MS || use.guardMs === 0) continue;
    const caused = use.ms - use.guardMs < LONG_MS ? ' (long because of the guard)' : '';
    lines.push(
      `long task at ${use.startMs.toFixed(0)} ms: ${use.ms.toFixed(1)} ms, guard ${use.guardMs.toFixed(1)} ms${caused}`,
    );
    const list = [...use.inclusive].sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [key, ms] of list) lines.push(`  ${ms.toFixed(1).padStart(7)} ms  ${key}`);
  }
  return lines.length === 0 ? 'no long task ran guard code' : lines.join('\n');
}
