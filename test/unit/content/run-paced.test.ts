/**
 * runPaced with the page's pacer (task-pacer.ts) on a fake clock: whatever the steps
 * cost, a task never starts another step once its slice is spent, so no task holds
 * two steps that together pass the slice (issue 19 §4: the built tables' load and the
 * first guards shared one long task), and the result is the steps' own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runPaced } from '../../../src/content/run-paced.ts';
import { createTaskPacer } from '../../../src/content/task-pacer.ts';

const SLICE_MS = 10;

/** Steps of the given costs on a fake clock, paced; each step's task and start time. */
async function paced(costs: readonly number[]) {
  let now = 0;
  let task = 0;
  const queue: (() => void)[] = [];
  const pace = createTaskPacer(
    { now: () => now, newTask: (callback) => void queue.push(callback) },
    SLICE_MS,
  );
  const ran: { task: number; at: number }[] = [];
  function* steps(): Generator<void, number, void> {
    for (const cost of costs) {
      ran.push({ task, at: now });
      now += cost;
      yield;
    }
    return costs.length;
  }
  const done = runPaced(steps(), pace);
  let result: number | undefined;
  void done.then((value) => (result = value));
  // Each queued callback is a new task; the microtasks in between are the current one's.
  for (let turn = 0; result === undefined && turn < 10_000; turn++) {
    for (let i = 0; i < 20; i++) await Promise.resolve();
    const next = queue.shift();
    if (next === undefined) continue;
    task++;
    next();
  }
  return { ran, result };
}

describe('runPaced', () => {
  it('runs a step after a long first step in a task of its own', async () => {
    const { ran } = await paced([40, 12]);
    expect(ran[0]?.task).not.toBe(ran[1]?.task);
  });

  it('never starts a step in a task whose slice is spent, and returns the steps’ value', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }),
        async (costs) => {
          const { ran, result } = await paced(costs);
          expect(result).toBe(costs.length);
          expect(ran).toHaveLength(costs.length);
          const taskStart = new Map<number, number>();
          for (const { task, at } of ran) {
            const start = taskStart.get(task) ?? at;
            taskStart.set(task, start);
            expect(at - start).toBeLessThan(SLICE_MS);
          }
        },
      ),
    );
  });
});
