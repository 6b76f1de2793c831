/**
 * Runs of unchanged SSE frames go out as one slice of the framer's source
 * (stream-rewriter.ts `send`, issue 20's wire target) instead of each frame's
 * own string. The page must receive the same bytes, push by push, as without
 * runs: a differential against the same rewriter given a framer that is not the
 * SSE framer (so no runs), for any events, redactions, blocks and splits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../../src/core/guard/guard-event.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { aiSdkUiStream } from '../../../src/core/wire/adapters/ai-sdk-ui-stream.ts';
import { openAiChatStream } from '../../../src/core/wire/adapters/openai-chat.ts';
import { yuanbaoWeb } from '../../../src/core/wire/adapters/yuanbao-web.ts';
import { SseFramer } from '../../../src/core/wire/framing/sse-framer.ts';
import type { Framer } from '../../../src/core/wire/raw-frame.ts';
import { StreamRewriter } from '../../../src/core/wire/stream-rewriter.ts';
import type { WireAdapter } from '../../../src/core/wire/wire-event.ts';
import { codeWordPackSpec } from '../../support/code-word-pack.ts';

/** One redact rule and one block rule, so redactions, cuts and blocks are all reached. */
const pack = compilePack(codeWordPackSpec('runs-test'));

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('zebra-', '12', '3', 'STOP', '42', '"', '\n', 'é', '\ud83d\ude00'),
);

/** Each format's delta chunk, and chunks without text between them. */
const formats: [string, WireAdapter, (t: string) => string, string[]][] = [
  [
    'OpenAI chat',
    openAiChatStream,
    (t) => `{"id":"c1","choices":[{"index":0,"delta":{"content":${JSON.stringify(t)}}}]}`,
    ['{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}', '[DONE]'],
  ],
  [
    'AI SDK UI',
    aiSdkUiStream,
    (t) => `{"type":"text-delta","id":"t0","delta":${JSON.stringify(t)}}`,
    ['{"type":"text-start","id":"t0"}', '{"type":"text-end","id":"t0"}', '[DONE]'],
  ],
  [
    'Yuanbao',
    yuanbaoWeb,
    (t) => `{"type":"text","msg":${JSON.stringify(t)}}`,
    ['{"type":"meta"}', '[MSGINDEX:2]', '{"type":"think","content":"zebra-1"}', '[DONE]'],
  ],
];

/** The SSE framer behind another object: the rewriter cannot use its source, so makes no runs. */
function plainFramer(): Framer {
  const inner = new SseFramer();
  return { push: (t) => inner.push(t), end: () => inner.end() };
}

function replay(adapter: WireAdapter, chunks: readonly string[], runs: boolean) {
  const events: { channel: string; events: GuardEvent[] }[] = [];
  const rewriter = new StreamRewriter(adapter, pack, {
    onGuardEvents: (channel, list) => events.push({ channel, events: list }),
    ...(runs ? {} : { framer: plainFramer }),
  });
  const pushes = chunks.map((chunk) => rewriter.push(chunk));
  pushes.push(rewriter.end());
  return { pushes, events };
}

describe('unchanged frames sent as slices of the framer source', () => {
  it.each(formats)(
    '%s: the same output push by push as frame by frame, for any events and split',
    (_, adapter, delta, others) => {
      const event = fc.oneof(
        { weight: 6, arbitrary: text.map(delta) },
        { weight: 1, arbitrary: fc.constantFrom(...others) },
      );
      const body = fc
        .array(fc.tuple(event, fc.constantFrom('\n\n', '\n\n', '\r\n\r\n')), { maxLength: 24 })
        .map((list) => list.map(([data, end]) => `data: ${data}${end}`).join(''));
      const split = (b: string) =>
        fc
          .uniqueArray(fc.integer({ min: 1, max: Math.max(1, b.length - 1) }), { maxLength: 8 })
          .map((cuts) => {
            const at = [0, ...cuts.filter((c) => c < b.length).sort((x, y) => x - y), b.length];
            return at.slice(1).map((end, i) => b.slice(at[i], end));
          });
      fc.assert(
        fc.property(
          body.chain((b) => split(b)),
          (chunks) => {
            expect(replay(adapter, chunks, true)).toEqual(replay(adapter, chunks, false));
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});
