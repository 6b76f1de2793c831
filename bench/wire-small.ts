/**
 * `tsx bench/wire-small.ts [mb] [runs] [format]`: the wire replay of one format alone next to the
 * engine's 4-unit pushes of the same text, so a CPU profile shows the adapter's own cost per event
 * (issue 20's wire ≤ 2× target; bench/wire-throughput.ts builds the bodies).
 */
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import { getCorePack } from '../src/core/rules/builtin-packs.ts';
import { adapterByFormat } from '../src/core/wire/adapter-registry.ts';
import { StreamRewriter } from '../src/core/wire/stream-rewriter.ts';
import type { WireFormat } from '../src/core/wire/wire-event.ts';
import { buildWorkload } from './workload.ts';
import { unitOffsetAtBytes } from './utf8-length.ts';
import { aiSdkUiBody, chatGptWebBody, openAiChatBody, yuanbaoWebBody } from './wire-throughput.ts';

const pack = getCorePack();
const mb = Number(process.argv[2] ?? '1');
const runs = Number(process.argv[3] ?? '3');
const format = process.argv[4] ?? 'openai-chat';
const bodies: Record<string, (chunks: readonly string[]) => string[]> = {
  'openai-chat': openAiChatBody,
  'ai-sdk-ui': aiSdkUiBody,
  'yuanbao-web': yuanbaoWebBody,
  'chatgpt-web': chatGptWebBody,
};
const bodyOf = bodies[format];
const adapter = adapterByFormat(format as WireFormat);
if (bodyOf === undefined || adapter === undefined) throw new Error(`no bench body for ${format}`);
const workload = buildWorkload();
const units = unitOffsetAtBytes(workload.text, mb * 1e6);
const chunks = workload.chunks.slice(0, Math.ceil(units / workload.chunkChars));
const pieces = bodyOf(chunks);

function cpuMs(run: () => void): number {
  const cpu = process.cpuUsage();
  run();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

let engine = Infinity;
let wire = Infinity;
for (let i = 0; i < runs; i++) {
  engine = Math.min(
    engine,
    cpuMs(() => {
      const guard = new StreamGuard(pack);
      for (const c of chunks) guard.push(c);
      guard.end();
    }),
  );
  wire = Math.min(
    wire,
    cpuMs(() => {
      const rewriter = new StreamRewriter(adapter, pack);
      for (const piece of pieces) rewriter.push(piece);
      rewriter.end();
    }),
  );
}
const perEvent = ((wire - engine) * 1000) / chunks.length;
process.stdout.write(
  `${format}: ${chunks.length} events, engine ${engine.toFixed(0)} ms, wire ${wire.toFixed(0)} ms, ` +
    `ratio ${(wire / engine).toFixed(2)}, adapter ${perEvent.toFixed(2)} µs per event\n`,
);
