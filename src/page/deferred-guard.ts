/**
 * A guard built when it is first needed, after `ready` settles: the MAIN world
 * has no pack until the bridge's config arrives (page-guard-config.ts), and a
 * guarded body must wait for it rather than pass unguarded or be released on a
 * timer. The hooks still get their guard synchronously: writes and reads on
 * this pair wait for `ready`, then go through the real guard `build` makes.
 * When `ready` rejects or `build` throws, every write and read rejects, so the
 * hook fails the body closed exactly as for a guard failure (guarded-response.ts).
 *
 * No extension APIs here.
 */

interface Opened<T> {
  writer: WritableStreamDefaultWriter<T>;
  reader: ReadableStreamDefaultReader<T>;
}

export function deferredGuard<T, S>(
  ready: () => Promise<S>,
  build: (setup: S) => ReadableWritablePair<T, T>,
): ReadableWritablePair<T, T> {
  let opened: Promise<Opened<T>> | undefined;
  const open = (): Promise<Opened<T>> =>
    (opened ??= ready().then((setup) => {
      const pair = build(setup);
      return { writer: pair.writable.getWriter(), reader: pair.readable.getReader() };
    }));
  const writable = new WritableStream<T>({
    write: async (chunk) => (await open()).writer.write(chunk),
    close: async () => (await open()).writer.close(),
    abort: async (reason) => {
      // Never opened: nothing to abort (and no guard is built just to be aborted).
      const inner = await opened?.catch(() => undefined);
      await inner?.writer.abort(reason);
    },
  });
  const readable = new ReadableStream<T>(
    {
      async pull(controller) {
        const result = await (await open()).reader.read();
        if (result.done) controller.close();
        else controller.enqueue(result.value);
      },
      cancel: async (reason) => {
        const inner = await opened?.catch(() => undefined);
        await inner?.reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { writable, readable };
}
