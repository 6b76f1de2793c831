/**
 * Runs a stepped computation (a generator that yields between bounded pieces of
 * work, for a caller on a page's main thread: warm-up.ts) to its end in one go,
 * for callers that need the result now (Node, the CLI, the background), and
 * returns its result.
 */
export function runToEnd<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
