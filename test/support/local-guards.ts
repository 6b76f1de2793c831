/**
 * Guards for the hooks' unit tests that run in the test's own realm: in the
 * extension the guard runs in the ISOLATED world (src/page/remote-guard.ts);
 * the hooks only need a byte guard for a recognised response.
 */
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { adapterById } from '../../src/core/wire/adapter-registry.ts';
import type { WireRecogniser } from '../../src/core/wire/wire-event.ts';
import { createWireTransform } from '../../src/core/wire/wire-transform.ts';
import type { ByteGuard } from '../../src/page/guarded-response.ts';

/** The byte guard of the recogniser's adapter, with the built-in packs. */
export function localWireGuard(recogniser: WireRecogniser): ByteGuard {
  const adapter = adapterById(recogniser.id);
  if (adapter === undefined) throw new Error(`no adapter ${recogniser.id}`);
  return createWireTransform(adapter, getCorePack());
}

/** A text guard as a byte guard: UTF-8 decode (streaming), guard, encode. */
export function textGuardAsBytes(guard: ReadableWritablePair<string, string>): ByteGuard {
  const decoder = new TextDecoderStream();
  return {
    // TS 5.9: TextDecoderStream's writable side is typed for BufferSource.
    writable: decoder.writable as unknown as WritableStream<Uint8Array>,
    readable: decoder.readable.pipeThrough(guard).pipeThrough(new TextEncoderStream()),
  };
}
