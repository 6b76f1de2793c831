/**
 * Runs a generator's steps on the page's main thread, asking the pacer
 * (task-pacer.ts) before each step whether it may run in the current task.
 *
 * Before, not after: the pacer times a task's slice from its first call in that
 * task, so a step run before the first call went untimed, and the step after it
 * joined it in one task. On the page the first set-up step (the built tables'
 * load, 36-69 ms) and the first guards (10-30 ms) shared one task that way, a
 * guard long task (issue 19 §4, docs/page-setup.md "The guard long task").
 */
export async function runPaced<T>(
  steps: Generator<void, T, void>,
  pause: () => Promise<void> | undefined,
): Promise<T> {
  for (;;) {
    const paused = pause();
    if (paused !== undefined) await paused;
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
