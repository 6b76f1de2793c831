/**
 * Kimi's send (WIRE-FORMATS-2.md §2.2) through the send hook and the request host
 * (test/support/outgoing-pair.ts, as bridge.ts wires them): the body is a binary
 * Connect envelope, read as bytes, the person's token redacted in
 * `message.blocks[].text.content`, and sent as one envelope whose 4-byte length
 * is the byte length of its new JSON; a body that is not one envelope fails closed.
 */
import { describe, expect, it } from 'vitest';
import { byteStringOf } from '../../../src/core/wire/byte-string.ts';
import { kimiRequest } from '../../../src/core/wire/requests/kimi-request.ts';
import { noMarks } from '../../support/no-marks.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { hookWith } from '../../support/outgoing-pair.ts';

const URL_KIMI = 'https://www.kimi.com/apiv2/kimi.gateway.chat.v1.ChatService/Chat';

/** An envelope as Kimi's client writes it (Node's own UInt32BE). */
function envelope(value: unknown): Uint8Array<ArrayBuffer> {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  const header = Buffer.alloc(5);
  header.writeUInt32BE(json.length, 1);
  return Uint8Array.from(Buffer.concat([header, json]));
}

const sendBody = (content: string) => ({
  scenario: 'SCENARIO_K2D5',
  message: {
    role: 'user',
    blocks: [{ message_id: '', text: { content } }],
    scenario: 'SCENARIO_K2D5',
  },
  options: { thinking: false },
});

describe("Kimi's send", () => {
  it('redacts the text in the envelope and re-envelopes it with its byte length', async () => {
    const token = fakeGithubToken(8);
    const { hook } = hookWith({ answer: noMarks });
    // 巴黎 and the padding make the JSON longer than 127 bytes: a length byte that is not ASCII.
    const body = envelope(sendBody(`巴黎 ${'x'.repeat(120)} my key ${token}`));
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/connect+json' },
      body,
    };
    const args = await hook.prepare(URL_KIMI, init);
    const sent = new Uint8Array(await (args?.[0] as Request).arrayBuffer());
    const view = Buffer.from(sent);
    expect(view.readUInt8(0)).toBe(0);
    expect(view.readUInt32BE(1)).toBe(sent.length - 5);
    const json = JSON.parse(view.subarray(5).toString('utf8')) as ReturnType<typeof sendBody>;
    const text = json.message.blocks[0]?.text.content ?? '';
    expect(text).not.toContain(token);
    expect(text).toMatch(/^巴黎 x+ my key \[redacted:github-pat\]$/);
    expect(init.body).toBe(body);
  });

  it('locates the text of a body that is one envelope, and refuses any other', () => {
    const body = byteStringOf(envelope(sendBody('hello')));
    expect(kimiRequest.locate(body).map((t) => t.text)).toEqual(['hello']);
    expect(() => kimiRequest.locate(body.slice(0, -1))).toThrow(SyntaxError);
    expect(() => kimiRequest.locate(JSON.stringify(sendBody('hello')))).toThrow(SyntaxError);
  });

  it('fails closed when the body is not an envelope', async () => {
    const { hook } = hookWith({ answer: noMarks });
    const init: RequestInit = { method: 'POST', body: JSON.stringify(sendBody('hello')) };
    await expect(hook.prepare(URL_KIMI, init)).rejects.toThrow(TypeError);
  });
});
