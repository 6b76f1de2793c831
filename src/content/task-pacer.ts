/**
 * Keeps chained guard work from becoming one long task on the page's main
 * thread (issue 4: no long tasks caused by the guard). Promise continuations
 * all run in the task that settles the first of them; `pace()` lets a step go
 * on in the current task while that task is younger than `sliceMs`, and
 * otherwise resolves only after a new task begins, so the page renders and
 * takes input in between. Only when work runs, never what it does: the guard's
 * output does not depend on how its steps are spread over tasks.
 */
export interface TaskPacerDeps {
  now(): number;
  /** Runs `callback` in a new task (a zero-delay timer in the extension). */
  newTask(callback: () => void): void;
}

export function createTaskPacer(
  deps: TaskPacerDeps,
  sliceMs = 16,
): () => Promise<void> | undefined {
  let sliceStart: number | undefined;
  const startSlice = () => {
    sliceStart = deps.now();
    // Runs in a later task: the next step there starts a fresh slice.
    deps.newTask(() => {
      sliceStart = undefined;
    });
  };
  return () => {
    if (sliceStart === undefined) {
      startSlice();
      return undefined;
    }
    if (deps.now() - sliceStart < sliceMs) return undefined;
    return new Promise<void>((resolve) => {
      deps.newTask(() => {
        startSlice();
        resolve();
      });
    });
  };
}
