/**
 * One large SSE event arriving in many pieces: the framer alone, and the OpenAI
 * chat rewriter with a one-rule pack around it. Before 2026-12-03 the framer
 * searched its whole buffer for a CR on every push, so such an event cost time
 * quadratic in its length (issue 19 §4, the stream's long tasks).
 *
 *   npx tsx bench/large-event.ts [tree …]   (default: this tree; give another
 *   checkout to compare, in the same process)
 */
import { resolve } from 'node:path';

const trees = process.argv.length > 2 ? process.argv.slice(2) : ['.'];

async function run(tree: string): Promise<void> {
  const root = resolve(tree);
  const { SseFramer } = await import(`${root}/src/core/wire/framing/sse-framer.ts`);
  const { StreamRewriter } = await import(`${root}/src/core/wire/stream-rewriter.ts`);
  const { openAiChatStream } = await import(`${root}/src/core/wire/adapters/openai-chat.ts`);
  const { compilePack } = await import(`${root}/src/core/rules/compile-pack.ts`);
  const { codeWordPackSpec } = await import(`${root}/test/support/code-word-pack.ts`);
  const pack = compilePack(codeWordPackSpec('large-event'));
  const data = { id: 'c', choices: [{ index: 0, delta: { content: 'word '.repeat(200_000) } }] };
  const event = `data: ${JSON.stringify(data)}\n\n`;
  for (const size of [16_384, 1_024]) {
    const framer = new SseFramer();
    let t0 = performance.now();
    for (let i = 0; i < event.length; i += size) framer.push(event.slice(i, i + size));
    framer.end();
    const framed = performance.now() - t0;
    const rewriter = new StreamRewriter(openAiChatStream, pack, {});
    t0 = performance.now();
    for (let i = 0; i < event.length; i += size) rewriter.push(event.slice(i, i + size));
    rewriter.end();
    const rewritten = performance.now() - t0;
    console.log(
      JSON.stringify({
        tree,
        event_bytes: event.length,
        piece: size,
        framer_ms: +framed.toFixed(1),
        rewriter_ms: +rewritten.toFixed(1),
      }),
    );
  }
}

for (const tree of trees) await run(tree);
