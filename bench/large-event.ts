/**
 * One large frame arriving in many pieces, through each framer, and the OpenAI
 * chat rewriter with a one-rule pack around the SSE one. Before 2026-12-03 the
 * framers searched or read their whole buffer on every push, so such a frame
 * cost time quadratic in its length (issue 19 §4, the stream's long tasks).
 *
 *   npx tsx bench/large-event.ts [tree …]   (default: this tree; give other
 *   checkouts to compare them in the same process)
 *
 * One JSON line per tree, framer and piece size: milliseconds for the whole frame.
 * `npm run bench` reports the 1 KB figures of this tree as `wire.large_frame_ms`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PIECES = [16_384, 1_024];

interface FramerLike {
  push(text: string): unknown[];
  end(): unknown[];
}

function timed(make: () => FramerLike, body: string, piece: number): number {
  const framer = make();
  const t0 = performance.now();
  for (let i = 0; i < body.length; i += piece) framer.push(body.slice(i, i + piece));
  framer.end();
  return +(performance.now() - t0).toFixed(1);
}

/** Milliseconds per framer and piece size for one 1 MB frame, in the tree at `root`. */
export async function measureLargeFrames(
  root: string,
): Promise<{ framer: string; piece: number; frame_units: number; ms: number }[]> {
  const framing = `${root}/src/core/wire/framing`;
  const { SseFramer } = await import(`${framing}/sse-framer.ts`);
  const { NdjsonFramer } = await import(`${framing}/ndjson-framer.ts`);
  const { LengthPrefixedFramer, lengthPrefixedFrame } = await import(
    `${framing}/length-prefixed-framer.ts`
  );
  const { ConnectFramer, renderConnectEnvelope } = await import(`${framing}/connect-framer.ts`);
  const { StructuralFramer } = await import(`${framing}/structural-framer.ts`);
  const { StreamRewriter } = await import(`${root}/src/core/wire/stream-rewriter.ts`);
  const { openAiChatStream } = await import(`${root}/src/core/wire/adapters/openai-chat.ts`);
  const { compilePack } = await import(`${root}/src/core/rules/compile-pack.ts`);
  const { codeWordPackSpec } = await import(`${root}/test/support/code-word-pack.ts`);
  const pack = compilePack(codeWordPackSpec('large-event'));
  const json = JSON.stringify({
    id: 'c',
    choices: [{ index: 0, delta: { content: 'word '.repeat(200_000) } }],
  });
  const cases: [string, () => FramerLike, string][] = [
    ['sse', () => new SseFramer(), `data: ${json}\n\n`],
    ['ndjson', () => new NdjsonFramer(), `${json}\n`],
    ['length-prefixed', () => new LengthPrefixedFramer(), lengthPrefixedFrame(json)],
    ['connect', () => new ConnectFramer(), renderConnectEnvelope(0, json)],
    ['structural-json', () => new StructuralFramer(), `${json}\n`],
    [
      'openai-rewriter',
      () => {
        const r = new StreamRewriter(openAiChatStream, pack, {});
        return { push: (t: string) => [r.push(t)], end: () => [r.end()] };
      },
      `data: ${json}\n\n`,
    ],
  ];
  return cases.flatMap(([framer, make, body]) =>
    PIECES.map((piece) => ({
      framer,
      piece,
      frame_units: body.length,
      ms: timed(make, body, piece),
    })),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const trees = process.argv.length > 2 ? process.argv.slice(2) : ['.'];
  for (const tree of trees) {
    for (const row of await measureLargeFrames(resolve(tree))) {
      console.log(JSON.stringify({ tree, ...row }));
    }
  }
}
