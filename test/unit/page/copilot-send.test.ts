/**
 * Copilot's send side (issue 20 §2; WIRE-FORMATS-2.md §4.2): the frames the page
 * sends on the chat WebSocket go through the send hook and the request host
 * (test/support/outgoing-pair.ts, as main-world.ts and bridge.ts wire them) in
 * the order they were sent (src/page/socket-send-queue.ts): the person's token
 * in a `send` frame is redacted before it leaves, every other frame leaves byte
 * for byte, a later frame never overtakes a held one, and a refused frame is not
 * sent. The request adapter's own shape checks are here too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copilotRequest } from '../../../src/core/wire/requests/copilot-request.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';
import { SOCKET_SEND } from '../../../src/core/wire/requests/request-recognisers.ts';
import { type SendQueue, sendInOrder } from '../../../src/page/socket-send-queue.ts';
import { noMarks } from '../../support/no-marks.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { hookWith } from '../../support/outgoing-pair.ts';

const URL_COPILOT = 'wss://copilot.microsoft.com/c/api/chat?api-version=2';
const OTHER_SOCKET = 'wss://chat.example/ws/notifications';

const setOptions = JSON.stringify({
  event: 'setOptions',
  supportedFeatures: ['partial-generated-images'],
  supportedCards: ['weather'],
  ads: null,
});
const sendFrame = (text: string) =>
  JSON.stringify({
    event: 'send',
    conversationId: 'cv-1',
    content: [{ type: 'text', text }],
    mode: 'chat',
  });

/** Sends `frames` on one socket at `url`; resolves with what left, once all settled. */
async function sendAll(url: string, frames: unknown[], connected = true): Promise<unknown[]> {
  const { hook } = hookWith({ answer: noMarks, connected });
  const queue: SendQueue & { url: string } = { url };
  const out: unknown[] = [];
  for (const frame of frames) {
    sendInOrder(
      queue,
      (input, init) => hook.prepare(input, init),
      frame,
      (f) => out.push(f),
    );
  }
  while (queue.tail !== undefined) await queue.tail;
  return out;
}

describe("Copilot's send frames (§4.2)", () => {
  const token = fakeGithubToken(3);

  it('redact the token in a send frame, pass every other frame byte for byte, in order', async () => {
    const secret = sendFrame(`my key is ${token}, keep it`);
    const after = sendFrame('thanks');
    const out = await sendAll(URL_COPILOT, [setOptions, secret, after]);
    expect(out).toHaveLength(3);
    expect(out[0]).toBe(setOptions);
    const sent = JSON.parse(out[1] as string) as { content: { text: string }[] };
    expect(sent.content[0]?.text).toBe('my key is [redacted:github-pat], keep it');
    expect(out[1]).not.toContain(token.slice(4, 16));
    expect(out[2]).toBe(after);
  });

  it('keep the page’s order for any mix of frames, held or not', async () => {
    const frame = fc.oneof(
      fc.constant(setOptions),
      fc.string({ maxLength: 12 }).map((t) => sendFrame(`n ${t}`)),
      fc.constant(sendFrame(`key ${token}`)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { maxLength: 6 }), async (frames) => {
        const out = await sendAll(URL_COPILOT, frames);
        expect(out).toHaveLength(frames.length);
        out.forEach((sent, i) => {
          const page = frames[i]!;
          if (page.includes(token)) expect(sent).not.toContain(token);
          else expect(sent).toBe(page);
        });
      }),
      { numRuns: 25 },
    );
  });

  it('with no channel to the bridge, no frame of the socket leaves (fail closed)', async () => {
    const out = await sendAll(URL_COPILOT, [sendFrame(`key ${token}`), setOptions], false);
    expect(out).toEqual([]);
  });

  it('a frame that is not one JSON object is not sent and is reported; the next one leaves', async () => {
    const { hook, sent } = hookWith({ answer: noMarks });
    const queue: SendQueue & { url: string } = { url: URL_COPILOT };
    const out: unknown[] = [];
    for (const frame of ['ping', setOptions]) {
      sendInOrder(
        queue,
        (i, init) => hook.prepare(i, init),
        frame,
        (f) => out.push(f),
      );
    }
    while (queue.tail !== undefined) await queue.tail;
    expect(out).toEqual([setOptions]);
    expect(sent).toContainEqual(expect.objectContaining({ type: 'stream-end', outcome: 'failed' }));
  });

  it('another socket’s frames leave at once, untouched', () => {
    const { hook } = hookWith({ answer: noMarks });
    const queue: SendQueue & { url: string } = { url: OTHER_SOCKET };
    const out: unknown[] = [];
    const frame = sendFrame(`key ${token}`);
    sendInOrder(
      queue,
      (i, init) => hook.prepare(i, init),
      frame,
      (f) => out.push(f),
    );
    expect(out).toEqual([frame]);
    expect(queue.tail).toBeUndefined();
  });

  it('a binary frame of Copilot’s socket is guarded as UTF-8 and leaves binary', async () => {
    const bytes = new TextEncoder().encode(sendFrame(`key ${token}`));
    const out = await sendAll(URL_COPILOT, [bytes.buffer]);
    expect(out[0]).toBeInstanceOf(ArrayBuffer);
    const text = new TextDecoder().decode(out[0] as ArrayBuffer);
    expect(text).toContain('[redacted:github-pat]');
  });
});

describe('the Copilot request adapter', () => {
  const request = { url: URL_COPILOT, method: SOCKET_SEND, contentType: 'application/json' };

  it('is the adapter of a socket frame to Copilot’s chat socket, and of no HTTP send', () => {
    expect(detectRequestAdapter(request)?.name).toBe('copilot');
    expect(detectRequestAdapter({ ...request, method: 'POST' })?.name).not.toBe('copilot');
    expect(detectRequestAdapter({ ...request, url: OTHER_SOCKET })).toBeUndefined();
  });

  it('locates each text part of a send frame and nothing in the other frames', () => {
    const frame = JSON.stringify({
      event: 'send',
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', url: 'https://img.example/x.png' },
        { type: 'text', text: 'two' },
      ],
    });
    expect(copilotRequest.locate(frame).map((t) => [t.path, t.text, t.part])).toEqual([
      [['content', 0, 'text'], 'one', 'new'],
      [['content', 2, 'text'], 'two', 'new'],
    ]);
    expect(copilotRequest.locate(setOptions)).toEqual([]);
  });

  it('refuses a frame that is not one JSON object', () => {
    expect(() => copilotRequest.locate('ping')).toThrow(SyntaxError);
    expect(() => copilotRequest.locate('[1]')).toThrow(SyntaxError);
  });
});
