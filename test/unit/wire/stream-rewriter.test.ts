/** Framework behaviour every adapter relies on, pinned with small synthetic adapters. */
import { describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { openAiChatStream } from '../../../src/core/wire/adapters/openai-chat.ts';
import { renderSseJson, sseJson } from '../../../src/core/wire/sse-json-render.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { type WireAdapter, passThrough } from '../../../src/core/wire/wire-event.ts';

const pack = getCorePack();
const token = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';

/** `{"t": text, "end"?: true}` frames on one channel `a`; `end` closes it. */
const toyAdapter: WireAdapter = {
  id: 'toy-test',
  format: 'openai-chat',
  framing: 'sse',
  detect: () => true,
  open: () => ({
    decode(frame) {
      const json = sseJson(frame) as { t?: string; end?: boolean } | undefined;
      if (typeof json?.t !== 'string') return passThrough(frame);
      return {
        frame,
        slots: [{ channel: 'a', mode: 'delta', text: json.t }],
        render: (texts) => renderSseJson(frame, [{ path: ['t'], value: texts[0] as string }]),
      };
    },
    blockEnding: () => '',
  }),
};

describe('StreamRewriter', () => {
  it('guards an unterminated last SSE event instead of passing it through', () => {
    const body = `data: {"choices":[{"index":0,"delta":{"content":"${token}"}}]}\n`;
    const out = replayBody(openAiChatStream, pack, [body]).output;
    expect(out).not.toContain('EXAMPLE');
    expect(out).toContain('[redacted:github-pat]');
  });

  it('text arriving on a channel after it ended is guarded as a new generation and reported', () => {
    const ending: WireAdapter = {
      ...toyAdapter,
      open: () => {
        const inner = toyAdapter.open();
        return {
          ...inner,
          decode(frame) {
            const event = inner.decode(frame);
            const json = sseJson(frame) as { stop?: boolean } | undefined;
            return json?.stop === true ? { ...event, ends: ['a'] } : event;
          },
        };
      },
    };
    const body = `data: {"t":"hello "}\n\ndata: {"stop":true}\n\ndata: {"t":"${token} later"}\n\n`;
    const replay = replayBody(ending, pack, [body]);
    expect(replay.output).toContain('{"t":"[redacted:github-pat] later"}');
    expect(replay.issues).toEqual([{ kind: 'channel-reopened', detail: 'a' }]);
  });
});

describe('StreamRewriter: a frame that cannot be rewritten', () => {
  it('stops the stream there and reports a render-failed issue and an error event', () => {
    const unrenderable: WireAdapter = {
      ...toyAdapter,
      open: () => {
        const inner = toyAdapter.open();
        return {
          ...inner,
          decode(frame) {
            const event = inner.decode(frame);
            return {
              ...event,
              render: () => {
                throw new Error('cannot re-serialise');
              },
            };
          },
        };
      },
    };
    const body = `data: {"t":"hello "}\n\ndata: {"t":"${token} later"}\n\ndata: {"t":"after"}\n\n`;
    const replay = replayBody(unrenderable, pack, [body]);
    expect(replay.output).toContain('{"t":"hello "}');
    expect(replay.output).not.toContain('EXAMPLE');
    expect(replay.output).not.toContain('after');
    expect(replay.issues).toEqual([{ kind: 'render-failed', detail: 'cannot re-serialise' }]);
    expect(replay.events.map((e) => e.event)).toContainEqual(
      expect.objectContaining({ type: 'error', message: 'render-failed: cannot re-serialise' }),
    );
  });
});
