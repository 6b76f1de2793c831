/**
 * The benchmark's attribution of long tasks to the guard (bench/long-task-attribution.ts),
 * on a synthetic trace: task boundaries from `RunTask` events, JavaScript samples from a
 * CPU profile on the same clock, the guard recognised by its scripts' URLs anywhere on
 * a sample's stack.
 */
import { describe, expect, it } from 'vitest';
import { type TraceEvent, attributeLongTasks } from '../../../bench/long-task-attribution.ts';

const PAGE = 'http://127.0.0.1:8080/';
const GUARD = 'chrome-extension://abc/';
const MS = 1000; // trace time is in microseconds

/** Profile nodes: 2 = idle/program, 3 = the page's script, 4 = the guard, 5 = native under the guard. */
const nodes = [
  { id: 1, callFrame: { url: '' } },
  { id: 2, parent: 1, callFrame: { url: '' } },
  { id: 3, parent: 1, callFrame: { url: `${PAGE}app.js` } },
  { id: 4, parent: 1, callFrame: { url: `${GUARD}src/content/guard-engine.js` } },
  { id: 5, parent: 4, callFrame: { url: '' } },
];

/** One sample per millisecond from `start`, each naming the node that ran. */
function profile(pid: number, start: number, timeline: number[]): TraceEvent[] {
  const half = Math.floor(timeline.length / 2);
  const chunk = (samples: number[], first: boolean): TraceEvent => ({
    name: 'ProfileChunk',
    ph: 'P',
    pid,
    tid: pid + 100,
    ts: start,
    id: '0x1',
    args: {
      data: {
        cpuProfile: { nodes: first ? nodes : [], samples },
        timeDeltas: samples.map(() => MS),
      },
    },
  });
  return [
    {
      name: 'Profile',
      ph: 'P',
      pid,
      tid: pid,
      ts: start,
      id: '0x1',
      args: { data: { startTime: start - MS } },
    },
    // The profile arrives in chunks; nodes only in the first.
    chunk(timeline.slice(0, half), true),
    chunk(timeline.slice(half), false),
  ];
}

const task = (
  pid: number,
  startMs: number,
  durMs: number,
  name = 'ThreadControllerImpl::RunTask',
): TraceEvent => ({
  name,
  ph: 'X',
  pid,
  tid: pid,
  ts: startMs * MS,
  dur: durMs * MS,
});

/** `count` samples of `node`. */
const run = (node: number, count: number) => new Array<number>(count).fill(node);

describe('attributeLongTasks', () => {
  // Samples from t = 0 ms, one per ms. Tasks:
  //   A [0, 60): 40 ms page, 20 ms guard (10 of it native under the guard) → caused by the guard
  //   B [100, 170): 65 ms page, 5 ms guard → long, touched, not caused
  //   C [200, 280): 80 ms page → long, no guard
  //   D [300, 330): 30 ms guard → guard, but not long
  const timeline = [
    ...run(3, 40),
    ...run(4, 10),
    ...run(5, 10),
    ...run(2, 40),
    ...run(3, 65),
    ...run(4, 5),
    ...run(2, 30),
    ...run(3, 80),
    ...run(2, 20),
    ...run(4, 30),
    ...run(2, 10),
  ];
  const events: TraceEvent[] = [
    ...profile(7, 0, timeline),
    task(7, 0, 60),
    task(7, 0, 60, 'RunTask'), // nested in A: folded into it
    task(7, 100, 70),
    task(7, 200, 80),
    task(7, 300, 30),
    // Another renderer (no page script in its profile): ignored, however long its tasks.
    ...profile(9, 0, run(4, 100)),
    task(9, 0, 100),
  ];
  const result = attributeLongTasks(
    events,
    (url) => url.startsWith(GUARD),
    (url) => url.startsWith(PAGE),
  );

  it('counts the long tasks of the page’s renderer only', () => {
    expect(result.long_tasks).toBe(3);
  });

  it('counts as caused only a task that is long because of the guard’s share', () => {
    expect(result.guard_long_tasks).toBe(1);
    expect(result.long_tasks_touched_by_guard).toBe(2);
  });

  it('adds up the guard’s time, native work it called included', () => {
    expect(result.guard_ms).toBe(20 + 5 + 30);
    expect(result.longest_guard_task_ms).toBe(70);
    expect(result.longest_guard_task_guard_ms).toBe(5);
  });

  it('refuses a trace without a profile of the page', () => {
    expect(() =>
      attributeLongTasks(
        [task(7, 0, 60)],
        () => true,
        () => true,
      ),
    ).toThrow(/profile/);
  });
});
