/**
 * The `wire` section of `npm run bench` (issue 3): what a wire adapter costs on
 * top of the bare engine for the same text.
 *
 * A slice of the workload (its 4-unit chunks) becomes a response body in a
 * provider's shape, one wire event per 4-unit chunk — like a real stream, whose
 * events each carry a token or two:
 * - OpenAI Chat Completions SSE, each chunk one `data:` `chat.completion.chunk`
 *   (the shape of test/fixtures/wire/openai-chat/);
 * - ChatGPT web, `delta_encoding` v1 (WIRE-FORMATS.md §1.4, the shape of
 *   test/fixtures/wire/chatgpt-web/): the visible message added at `""`, one
 *   `append` to `/message/content/parts/0`, then `{"v": …}` continuations, a
 *   final patch, `message_stream_complete` and `[DONE]`;
 * - the Vercel AI SDK UI message stream (WIRE-FORMATS-2.md §1.3, the shape of
 *   test/fixtures/wire/ai-sdk/): `start`, `start-step`, `text-start`, one
 *   `text-delta` per chunk, `text-end`, `finish-step`, `finish`, `[DONE]`;
 * - Tencent Yuanbao (WIRE-FORMATS-2.md §3.4, the shape of
 *   test/fixtures/wire/yuanbao-web/), one Chinese site (issue 20's "Done when"): `meta`,
 *   the bracketed non-JSON index line, one `{"type":"text","msg":…}` per chunk, `[DONE]`.
 * The body is cut into 4096-unit network chunks and replayed through
 * StreamRewriter (framing, adapter, per-channel guard, re-serialisation);
 * building the body is not timed. `*_mbps` is UTF-8 MB (1e6 bytes) of
 * workload text per second; `overhead_vs_engine` = OpenAI adapter time /
 * engine-only time for the same text in the same 4-unit pushes. The slice
 * grows up to 2 MB while the time budget allows (`measureWire`); every replay
 * also checks that the adapter made as many redactions as the engine did.
 */
import { StreamGuard } from '../src/core/guard/stream-guard.ts';
import type { CompiledPack } from '../src/core/rules/compile-pack.ts';
import { adapterByFormat } from '../src/core/wire/adapter-registry.ts';
import { StreamRewriter } from '../src/core/wire/stream-rewriter.ts';
import type { WireAdapter } from '../src/core/wire/wire-event.ts';

/** Network chunk size of the replay, in UTF-16 code units of the body. */
export const WIRE_NETWORK_CHUNK = 4096;

export interface WireReport {
  openai_chat_mbps: number;
  /** null while no chatgpt-web adapter is registered. */
  chatgpt_web_mbps: number | null;
  /** ChatGPT web's time over the engine's (issue 19: every wire adapter ≤ 2× the engine). */
  chatgpt_web_overhead_vs_engine: number | null;
  overhead_vs_engine: number;
  /** The AI SDK UI message stream (issue 20): throughput, and its time over the engine's. */
  ai_sdk_ui_mbps: number | null;
  ai_sdk_ui_overhead_vs_engine: number | null;
  /** Tencent Yuanbao's SSE (issue 20, one Chinese site): throughput, and its time over the engine's. */
  yuanbao_web_mbps: number | null;
  yuanbao_web_overhead_vs_engine: number | null;
}

export interface WireSlice {
  /** 4-unit chunks of the workload text. */
  chunks: readonly string[];
  /** UTF-8 bytes of their text. */
  bytes: number;
}

/** Collects body text and hands it out in network-sized pieces. */
class NetworkChunks {
  readonly pieces: string[] = [];
  private parts: string[] = [];
  private length = 0;

  add(text: string): void {
    this.parts.push(text);
    this.length += text.length;
    if (this.length >= WIRE_NETWORK_CHUNK * 8) this.cut(false);
  }

  done(): string[] {
    this.cut(true);
    return this.pieces;
  }

  private cut(all: boolean): void {
    let buffered = this.parts.join('');
    while (buffered.length >= WIRE_NETWORK_CHUNK) {
      this.pieces.push(buffered.slice(0, WIRE_NETWORK_CHUNK));
      buffered = buffered.slice(WIRE_NETWORK_CHUNK);
    }
    if (all && buffered.length > 0) {
      this.pieces.push(buffered);
      buffered = '';
    }
    this.parts = buffered.length > 0 ? [buffered] : [];
    this.length = buffered.length;
  }
}

/** An OpenAI Chat Completions stream carrying `chunks`, one `data:` event each. */
export function openAiChatBody(chunks: readonly string[]): string[] {
  const body = new NetworkChunks();
  const head =
    'data: {"id":"chatcmpl-BENCH0001","object":"chat.completion.chunk","created":1764400000,' +
    '"model":"gpt-4o-mini","system_fingerprint":"fp_bench","choices":[{"index":0,"delta":';
  const tail = ',"logprobs":null,"finish_reason":null}]}\n\n';
  body.add(`${head}{"role":"assistant","content":"","refusal":null}${tail}`);
  for (const chunk of chunks) body.add(`${head}{"content":${JSON.stringify(chunk)}}${tail}`);
  body.add(
    `${head}{},"logprobs":null,"finish_reason":"stop"}]}\n\n` +
      'data: {"id":"chatcmpl-BENCH0001","object":"chat.completion.chunk","created":1764400000,' +
      '"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":' +
      `${chunks.length},"total_tokens":${chunks.length + 9}}}\n\ndata: [DONE]\n\n`,
  );
  return body.done();
}

/** A ChatGPT web `delta_encoding` v1 stream whose visible answer is `chunks`. */
export function chatGptWebBody(chunks: readonly string[]): string[] {
  const conversation = '6a35c0de-0000-4000-8000-0000000be4c0';
  const body = new NetworkChunks();
  body.add('event: delta_encoding\ndata: "v1"\n\n');
  body.add(
    'event: delta\ndata: {"p": "", "o": "add", "v": {"message": {"id": "dd18bench-0001", ' +
      '"author": {"role": "assistant", "name": null, "metadata": {}}, "create_time": 1781867838.5, ' +
      '"update_time": null, "content": {"content_type": "text", "parts": [""]}, ' +
      '"status": "in_progress", "end_turn": null, "weight": 1.0, "metadata": {"model_slug": ' +
      '"gpt-5-3-mini", "parent_id": "cbd3user-0000"}, "recipient": "all", "channel": "final"}, ' +
      `"conversation_id": "${conversation}", "error": null, "error_code": null}, "c": 0}\n\n`,
  );
  body.add(
    `data: {"type": "message_marker", "conversation_id": "${conversation}", ` +
      '"message_id": "dd18bench-0001", "marker": "user_visible_token", "event": "first"}\n\n',
  );
  chunks.forEach((chunk, i) => {
    const text = JSON.stringify(chunk);
    body.add(
      i === 0
        ? `event: delta\ndata: {"p": "/message/content/parts/0", "o": "append", "v": ${text}}\n\n`
        : `event: delta\ndata: {"v": ${text}}\n\n`,
    );
  });
  body.add(
    'event: delta\ndata: {"p": "", "o": "patch", "v": [{"p": "/message/status", "o": "replace", ' +
      '"v": "finished_successfully"}, {"p": "/message/end_turn", "o": "replace", "v": true}, ' +
      '{"p": "/message/metadata", "o": "append", "v": {"is_complete": true, "finish_details": ' +
      '{"type": "stop", "stop_tokens": [200002]}}}]}\n\n' +
      `data: {"type": "message_stream_complete", "conversation_id": "${conversation}"}\n\n` +
      'data: [DONE]\n\n',
  );
  return body.done();
}

/** An AI SDK UI message stream whose one text part is `chunks`, one `text-delta` each. */
export function aiSdkUiBody(chunks: readonly string[]): string[] {
  const body = new NetworkChunks();
  body.add(
    'data: {"type":"start","messageId":"msg_BENCH0001"}\n\ndata: {"type":"start-step"}\n\n' +
      'data: {"type":"text-start","id":"txt-0"}\n\n',
  );
  for (const chunk of chunks) {
    body.add(`data: {"type":"text-delta","id":"txt-0","delta":${JSON.stringify(chunk)}}\n\n`);
  }
  body.add(
    'data: {"type":"text-end","id":"txt-0"}\n\ndata: {"type":"finish-step"}\n\n' +
      'data: {"type":"finish","finishReason":"stop"}\n\ndata: [DONE]\n\n',
  );
  return body.done();
}

/** A Yuanbao answer whose text is `chunks`, one `text` delta each (§3.4). */
export function yuanbaoWebBody(chunks: readonly string[]): string[] {
  const body = new NetworkChunks();
  body.add(
    'data: {"type":"meta","messageId":"m-BENCH0001","conversationId":"conv-BENCH"}\n\n' +
      'data: [MSGINDEX:2]\n\n',
  );
  for (const chunk of chunks) body.add(`data: {"type":"text","msg":${JSON.stringify(chunk)}}\n\n`);
  body.add('data: [DONE]\n\n');
  return body.done();
}

function seconds(from: bigint): number {
  return Number(process.hrtime.bigint() - from) / 1e9;
}

function countRedactions(texts: readonly string[]): number {
  let n = 0;
  for (const text of texts) n += text.split('[redacted:').length - 1;
  return n;
}

/** One replay of the body; returns its wall time and what the page would receive. */
export function replaySeconds(
  adapter: WireAdapter,
  pack: CompiledPack,
  pieces: readonly string[],
): { seconds: number; output: string[] } {
  const output: string[] = [];
  const rewriter = new StreamRewriter(adapter, pack);
  const t = process.hrtime.bigint();
  for (const piece of pieces) output.push(rewriter.push(piece));
  output.push(rewriter.end());
  return { seconds: seconds(t), output };
}

export function engineRun(
  pack: CompiledPack,
  chunks: readonly string[],
): { seconds: number; output: string[] } {
  const output: string[] = [];
  const guard = new StreamGuard(pack);
  const t = process.hrtime.bigint();
  for (const chunk of chunks) output.push(guard.push(chunk).emit);
  output.push(guard.end().emit);
  return { seconds: seconds(t), output };
}

/** Slice sizes tried in turn (UTF-8 bytes of workload text), each twice the one before. */
export const WIRE_SLICE_STEPS = [131_072, 262_144, 524_288, 1_048_576, 2_097_152];

/** Wall-time budget of the whole wire section. */
export const WIRE_BUDGET_SECONDS = 60;

export interface WireMeasurement {
  report: WireReport;
  /** UTF-8 bytes of the slice the figures come from. */
  sliceBytes: number;
}

/**
 * The OpenAI replay runs on growing slices (WIRE_SLICE_STEPS) while the next,
 * twice as large, step still fits in the time budget (judged by how the last
 * doubling grew the time); the figures come from the largest slice reached,
 * best of two runs there. Throughput that falls as the slice grows means a cost
 * that grows faster than the stream (DESIGN.md §3.9) and is reported.
 */
export function measureWire(
  pack: CompiledPack,
  sliceOf: (bytes: number) => WireSlice,
  log: (line: string) => void,
): WireMeasurement {
  const started = process.hrtime.bigint();
  const openAi = adapterByFormat('openai-chat');
  if (openAi === undefined) throw new Error('no openai-chat adapter registered');

  let slice: WireSlice | undefined;
  let pieces: string[] = [];
  let engineBest = Infinity;
  let openAiBest = Infinity;
  let redactions = 0;
  let previousSeconds = 0;
  let firstMbps = 0;
  for (const [step, target] of WIRE_SLICE_STEPS.entries()) {
    slice = sliceOf(target);
    pieces = openAiChatBody(slice.chunks);
    const engine = engineRun(pack, slice.chunks);
    redactions = countRedactions(engine.output);
    engineBest = engine.seconds;
    const replay = replaySeconds(openAi, pack, pieces);
    const found = countRedactions(replay.output);
    if (found !== redactions) {
      log(
        `WARNING: openai-chat: ${found} redactions in the replayed body, the engine made ${redactions}`,
      );
    }
    openAiBest = replay.seconds;
    const mbps = slice.bytes / 1e6 / replay.seconds;
    if (step === 0) firstMbps = mbps;
    log(
      `wire: openai-chat, ${slice.bytes} B of text in ${slice.chunks.length} events: ` +
        `${mbps.toFixed(2)} MB/s (engine alone ${(slice.bytes / 1e6 / engine.seconds).toFixed(2)} MB/s)`,
    );
    const growth = step === 0 ? 2 : Math.max(2, replay.seconds / previousSeconds);
    previousSeconds = replay.seconds;
    const remaining = WIRE_BUDGET_SECONDS - seconds(started);
    // The next step costs about eight replays (two each of OpenAI, ChatGPT, the AI SDK and
    // Yuanbao) of `growth` times this one.
    if (replay.seconds * growth * 9 > remaining) break;
  }
  if (slice === undefined) throw new Error('no wire slice');
  const mb = slice.bytes / 1e6;
  engineBest = Math.min(engineBest, engineRun(pack, slice.chunks).seconds);
  openAiBest = Math.min(openAiBest, replaySeconds(openAi, pack, pieces).seconds);
  pieces.length = 0;
  if (mb / openAiBest < 0.6 * firstMbps) {
    log(
      `WARNING: wire: openai-chat throughput falls with stream length (${firstMbps.toFixed(2)} MB/s ` +
        `on the first slice, ${(mb / openAiBest).toFixed(2)} MB/s on ${slice.bytes} B): a cost that grows faster than the stream`,
    );
  }

  let chatGptMbps: number | null = null;
  let chatGptSeconds: number | null = null;
  const chatGpt = adapterByFormat('chatgpt-web');
  if (chatGpt === undefined) {
    log('wire: no chatgpt-web adapter registered: chatgpt_web_mbps is null');
  } else {
    const body = chatGptWebBody(slice.chunks);
    const first = replaySeconds(chatGpt, pack, body);
    const found = countRedactions(first.output);
    if (found !== redactions) {
      log(
        `WARNING: chatgpt-web: ${found} redactions in the replayed body, the engine made ${redactions}`,
      );
    }
    first.output.length = 0;
    const best = Math.min(first.seconds, replaySeconds(chatGpt, pack, body).seconds);
    chatGptMbps = mb / best;
    chatGptSeconds = best;
    log(`wire: chatgpt-web, ${slice.bytes} B of text: ${chatGptMbps.toFixed(2)} MB/s`);
  }
  const aiSdk = measureFormat('ai-sdk-ui', aiSdkUiBody, pack, slice.chunks, redactions, log);
  const yuanbao = measureFormat('yuanbao-web', yuanbaoWebBody, pack, slice.chunks, redactions, log);
  log(`wire: ${seconds(started).toFixed(1)} s`);

  const round = (value: number): number => Math.round(value * 100) / 100;
  return {
    report: {
      openai_chat_mbps: round(mb / openAiBest),
      chatgpt_web_mbps: chatGptMbps === null ? null : round(chatGptMbps),
      chatgpt_web_overhead_vs_engine:
        chatGptSeconds === null ? null : round(chatGptSeconds / engineBest),
      overhead_vs_engine: round(openAiBest / engineBest),
      ai_sdk_ui_mbps: aiSdk === null ? null : round(mb / aiSdk),
      ai_sdk_ui_overhead_vs_engine: aiSdk === null ? null : round(aiSdk / engineBest),
      yuanbao_web_mbps: yuanbao === null ? null : round(mb / yuanbao),
      yuanbao_web_overhead_vs_engine: yuanbao === null ? null : round(yuanbao / engineBest),
    },
    sliceBytes: slice.bytes,
  };
}

/** Best of two replays of the slice in `format`'s shape, in seconds; null without the adapter. */
function measureFormat(
  format: 'ai-sdk-ui' | 'yuanbao-web',
  bodyOf: (chunks: readonly string[]) => string[],
  pack: CompiledPack,
  chunks: readonly string[],
  redactions: number,
  log: (line: string) => void,
): number | null {
  const adapter = adapterByFormat(format);
  if (adapter === undefined) {
    log(`wire: no ${format} adapter registered: its figures are null`);
    return null;
  }
  const body = bodyOf(chunks);
  const first = replaySeconds(adapter, pack, body);
  const found = countRedactions(first.output);
  if (found !== redactions) {
    log(
      `WARNING: ${format}: ${found} redactions in the replayed body, the engine made ${redactions}`,
    );
  }
  first.output.length = 0;
  const best = Math.min(first.seconds, replaySeconds(adapter, pack, body).seconds);
  log(`wire: ${format}, ${(best * 1000).toFixed(0)} ms`);
  return best;
}
