/** The task pacer lets work go on in a young task and defers it to a new task in an old one. */
import { describe, expect, it } from 'vitest';
import { createTaskPacer } from '../../../src/content/task-pacer.ts';

function fakeClock() {
  let now = 0;
  const timers: (() => void)[] = [];
  return {
    deps: {
      now: () => now,
      newTask: (callback: () => void) => {
        timers.push(callback);
        return timers.length;
      },
    },
    advance: (ms: number) => {
      now += ms;
    },
    /** Runs the tasks scheduled so far (a new task each). */
    runTasks: () => {
      for (const timer of timers.splice(0)) timer();
    },
  };
}

describe('createTaskPacer', () => {
  it('goes on at once while the task is young', () => {
    const clock = fakeClock();
    const pace = createTaskPacer(clock.deps, 16);
    expect(pace()).toBeUndefined();
    clock.advance(10);
    expect(pace()).toBeUndefined();
  });

  it('waits for a new task once the task has run for the slice, then goes on', async () => {
    const clock = fakeClock();
    const pace = createTaskPacer(clock.deps, 16);
    pace();
    clock.advance(20);
    const waiting = pace();
    expect(waiting).toBeInstanceOf(Promise);
    let resumed = false;
    void waiting?.then(() => {
      resumed = true;
    });
    await Promise.resolve();
    expect(resumed).toBe(false);
    clock.runTasks();
    await waiting;
    expect(resumed).toBe(true);
    // A fresh slice began with the new task.
    expect(pace()).toBeUndefined();
  });

  it('starts a fresh slice in each later task', () => {
    const clock = fakeClock();
    const pace = createTaskPacer(clock.deps, 16);
    pace();
    clock.advance(100);
    clock.runTasks();
    expect(pace()).toBeUndefined();
  });
});
