/**
 * The mock chat's scripted answers in real provider wire formats, shaped like the
 * captured fixtures (test/fixtures/wire/openai-chat/*.sse, anthropic/*.sse):
 *
 * - OpenAI Chat Completions: `data: {chat.completion.chunk}` events, a role chunk, the
 *   text as content deltas, a finish chunk, a usage chunk (when asked), `data: [DONE]`;
 *   `stream: false` answers one `chat.completion` JSON body.
 * - Anthropic Messages: `message_start`, `content_block_start`, a `ping`, `text_delta`s,
 *   `content_block_stop`, `message_delta`, `message_stop`; without `stream: true`, one
 *   `message` JSON body.
 *
 * The text is cut into deltas of varied sizes (by code point, as a model's tokens are),
 * so every payload longer than a few characters is split across several events; the
 * server then cuts the serialised bytes again into small network chunks.
 */

import type { ScriptedAnswer } from './scripted-answers.ts';

/** Delta sizes in code points, cycled: varied, and small next to every payload. */
const DELTA_SIZES = [4, 9, 6, 11, 5, 8, 13, 7];

/** Cuts `text` into model-like deltas (never inside a surrogate pair). */
export function textDeltas(text: string): string[] {
  const points = Array.from(text);
  const deltas: string[] = [];
  let at = 0;
  for (let i = 0; at < points.length; i++) {
    const size = DELTA_SIZES[i % DELTA_SIZES.length]!;
    deltas.push(points.slice(at, at + size).join(''));
    at += size;
  }
  return deltas;
}

/** Ids and times are fixed per answer, so the same prompt always gives the same bytes. */
function idFor(answer: ScriptedAnswer): string {
  let hash = 0x811c9dc5;
  for (const ch of answer.text) hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  return hash.toString(36).padStart(7, '0');
}

const CREATED = 1764400000;
export const OPENAI_MODEL = 'mock-gpt';
export const ANTHROPIC_MODEL = 'mock-claude';

/** Rough token count for usage fields (four characters a token). */
function tokens(text: string): number {
  return Math.max(1, Math.ceil(Array.from(text).length / 4));
}

export interface OpenAiChatOptions {
  /** `stream_options.include_usage`: a last chunk with `choices: []` and usage. */
  includeUsage?: boolean;
  promptTokens?: number;
}

/** The answer as an OpenAI Chat Completions SSE body. */
export function openAiChatSse(answer: ScriptedAnswer, options: OpenAiChatOptions = {}): string {
  const head = {
    id: `chatcmpl-mock${idFor(answer)}`,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: OPENAI_MODEL,
    system_fingerprint: 'fp_mock',
  };
  const chunk = (delta: object, finish: string | null) =>
    JSON.stringify({
      ...head,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const events = [
    chunk({ role: 'assistant', content: '', refusal: null }, null),
    ...textDeltas(answer.text).map((content) => chunk({ content }, null)),
    chunk({}, 'stop'),
  ];
  if (options.includeUsage) {
    const prompt = options.promptTokens ?? 1;
    const completion = tokens(answer.text);
    events.push(
      JSON.stringify({
        id: head.id,
        object: head.object,
        created: head.created,
        model: head.model,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: completion,
          total_tokens: prompt + completion,
        },
      }),
    );
  }
  events.push('[DONE]');
  return events.map((data) => `data: ${data}\n\n`).join('');
}

/** The answer as one OpenAI `chat.completion` JSON body (`stream: false`). */
export function openAiChatJson(answer: ScriptedAnswer, promptTokens = 1): string {
  const completion = tokens(answer.text);
  return JSON.stringify({
    id: `chatcmpl-mock${idFor(answer)}`,
    object: 'chat.completion',
    created: CREATED,
    model: OPENAI_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completion,
      total_tokens: promptTokens + completion,
    },
    system_fingerprint: 'fp_mock',
  });
}

/** The answer as one Anthropic `message` JSON body (no `stream: true`). */
export function anthropicJson(answer: ScriptedAnswer, inputTokens = 1): string {
  return JSON.stringify({
    id: `msg_mock${idFor(answer)}`,
    type: 'message',
    role: 'assistant',
    model: ANTHROPIC_MODEL,
    content: [{ type: 'text', text: answer.text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: tokens(answer.text) },
  });
}

/** The answer as an Anthropic Messages SSE body. */
export function anthropicSse(answer: ScriptedAnswer, inputTokens = 1): string {
  const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  return [
    event('message_start', {
      type: 'message_start',
      message: {
        id: `msg_mock${idFor(answer)}`,
        type: 'message',
        role: 'assistant',
        content: [],
        model: ANTHROPIC_MODEL,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    }),
    event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    event('ping', { type: 'ping' }),
    ...textDeltas(answer.text).map((text) =>
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      }),
    ),
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: tokens(answer.text) },
    }),
    event('message_stop', { type: 'message_stop' }),
  ].join('');
}
