/**
 * deferredGuard: a body piped through it waits for the config (nothing passes,
 * not even unguarded, before `ready` settles), then goes through the guard
 * `build` makes; a rejected `ready` or a throwing `build` errors the body.
 */
import { describe, expect, it } from 'vitest';
import { deferredGuard } from '../../../src/page/deferred-guard.ts';

function upperCase(): TransformStream<string, string> {
  return new TransformStream({ transform: (chunk, c) => c.enqueue(chunk.toUpperCase()) });
}

function source(chunks: string[]): ReadableStream<string> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function readAll(stream: ReadableStream<string>): Promise<string> {
  const reader = stream.getReader();
  let out = '';
  for (;;) {
    const result = await reader.read();
    if (result.done) return out;
    out += result.value;
  }
}

function later<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: Error): void } {
  let resolve: (v: T) => void = () => undefined;
  let reject: (e: Error) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('deferredGuard', () => {
  it('holds every chunk until ready, then guards them all', async () => {
    const ready = later<string>();
    const built: string[] = [];
    const guarded = source(['a', 'b']).pipeThrough(
      deferredGuard(
        () => ready.promise,
        (setup) => {
          built.push(setup);
          return upperCase();
        },
      ),
    );
    const reader = guarded.getReader();
    let first: ReadableStreamReadResult<string> | undefined;
    const read = reader.read().then((r) => (first = r));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(first).toBeUndefined();
    expect(built).toEqual([]);
    ready.resolve('config');
    await read;
    expect(first).toEqual({ done: false, value: 'A' });
    let rest = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      rest += r.value;
    }
    expect(rest).toBe('B');
    expect(built).toEqual(['config']);
  });

  it('errors the body when the config never comes', async () => {
    const guarded = source(['secret']).pipeThrough(
      deferredGuard(
        () => Promise.reject(new Error('no bridge')),
        () => upperCase(),
      ),
    );
    await expect(readAll(guarded)).rejects.toThrow('no bridge');
  });

  it('errors the body when the guard cannot be built', async () => {
    const guarded = source(['secret']).pipeThrough(
      deferredGuard(
        () => Promise.resolve(1),
        () => {
          throw new Error('guard failed');
        },
      ),
    );
    await expect(readAll(guarded)).rejects.toThrow('guard failed');
  });

  it('guards an empty body too (the guard sees the end)', async () => {
    let built = 0;
    const guarded = source([]).pipeThrough(
      deferredGuard(
        () => Promise.resolve(1),
        () => {
          built++;
          return upperCase();
        },
      ),
    );
    expect(await readAll(guarded)).toBe('');
    expect(built).toBe(1);
  });
});
