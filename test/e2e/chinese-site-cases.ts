/**
 * E2E cases (issue 20): the extension guards Kimi's Connect envelopes (the
 * byte-level path: WIRE-FORMATS-2.md §2.3), Doubao (§3.3, every copy of the
 * text), Yuanbao (§3.4) and Qianwen (§3.2, cumulative) against mocks of their endpoints
 * (test/mock-chat/chinese-site-routes.ts), the page reading each answer as that
 * site's client does. The network chunks fall anywhere, inside Kimi's 5-byte
 * headers and inside multi-byte characters too.
 *
 * Not a test file of its own: wire-format-cases.ts declares these with the
 * other wire formats, run in each browser extension-smoke.test.ts launches.
 */
import { describe, expect, it } from 'vitest';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import type { WireCaseContext } from './wire-format-cases.ts';

const REDACTED = '[redacted:github-pat]';

export function describeChineseSites(context: () => WireCaseContext): void {
  describe('Kimi, Doubao, Yuanbao and Qianwen answers (issue 20)', () => {
    const token = fakeGithubToken();

    it('Kimi: redacts a token split across Connect envelopes, each re-sent with its byte length', async () => {
      const { page } = context();
      const read = await page.evaluate(async () => {
        const res = await fetch('/apiv2/kimi.gateway.chat.v1.ChatService/Chat', {
          method: 'POST',
          headers: { 'content-type': 'application/connect+json' },
          body: new Uint8Array([0, 0, 0, 0, 2, 0x7b, 0x7d]),
        });
        const bytes = new Uint8Array(await res.arrayBuffer());
        const view = new DataView(bytes.buffer);
        // Strict, as a Connect client: a length that overruns, or bytes that are not UTF-8, fail.
        const decoder = new TextDecoder('utf-8', { fatal: true });
        const flags: number[] = [];
        let text = '';
        let error = '';
        let at = 0;
        while (at < bytes.length) {
          if (at + 5 > bytes.length) {
            error = 'header cut short';
            break;
          }
          const length = view.getUint32(at + 1);
          if (at + 5 + length > bytes.length) {
            error = 'envelope overruns the body';
            break;
          }
          const json = JSON.parse(decoder.decode(bytes.subarray(at + 5, at + 5 + length))) as {
            mask?: string;
            block?: { text?: { content?: string } };
          };
          flags.push(bytes[at] ?? -1);
          if (json.mask?.startsWith('block.text') === true) text += json.block?.text?.content ?? '';
          at += 5 + length;
        }
        return { text, flags, error };
      });
      expect(read.error).toBe('');
      expect(read.text).not.toContain(token.slice(4, 16));
      expect(read.text).toContain(REDACTED);
      expect(read.text).toMatch(/^你好 😀 here it is: /);
      expect(read.text).toContain('(rotate it soon).');
      expect(read.flags.at(-1)).toBe(2);
    });

    it("Kimi: the person's token leaves redacted in a Connect envelope with its new byte length", async () => {
      const { page } = context();
      const sent = await page.evaluate(async (secret: string) => {
        const json = new TextEncoder().encode(
          JSON.stringify({
            scenario: 'SCENARIO_K2D5',
            message: {
              role: 'user',
              blocks: [
                { message_id: '', text: { content: `巴黎 ${'x'.repeat(120)} key ${secret}` } },
              ],
            },
            options: { thinking: false },
          }),
        );
        const body = new Uint8Array(5 + json.length);
        new DataView(body.buffer).setUint32(1, json.length);
        body.set(json, 5);
        const res = await fetch('/apiv2/kimi.gateway.chat.v1.ChatService/Chat', {
          method: 'POST',
          headers: { 'content-type': 'application/connect+json' },
          body,
        });
        await res.arrayBuffer();
        return (await fetch('/kimi/last-send')).text();
      }, token);
      const bytes = Buffer.from(sent, 'base64');
      expect(bytes.readUInt8(0)).toBe(0);
      expect(bytes.readUInt32BE(1)).toBe(bytes.length - 5);
      const json = JSON.parse(bytes.subarray(5).toString('utf8')) as {
        message: { blocks: { text: { content: string } }[] };
      };
      const text = json.message.blocks[0]?.text.content ?? '';
      expect(text).not.toContain(token.slice(4, 16));
      expect(text).toMatch(/^巴黎 x+ key \[redacted:github-pat\]$/);
    });

    it('Doubao: redacts the token in every copy of the text and in the brief', async () => {
      const { page } = context();
      const copies = await page.evaluate(async () => {
        const res = await fetch('/chat/completion?aid=497858&device_platform=web', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"messages":[]}',
        });
        const body = await res.text();
        const read = { delta: '', blocks: '', tts: '', brief: '', ended: false };
        for (const frame of body.split('\n\n')) {
          const name = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (name === undefined || data === undefined) continue;
          const json = JSON.parse(data) as {
            text?: string;
            end_type?: number;
            msg_finish_attr?: { brief?: string };
            patch_op?: {
              patch_object: number;
              patch_value: {
                tts_content?: string;
                content_block?: { content: { text_block: { text: string } } }[];
              };
            }[];
          };
          if (name === 'CHUNK_DELTA') read.delta += json.text ?? '';
          if (name === 'SSE_REPLY_END') {
            read.brief += json.msg_finish_attr?.brief ?? '';
            if (json.end_type === 3) read.ended = true;
          }
          for (const op of name === 'STREAM_CHUNK' ? (json.patch_op ?? []) : []) {
            if (op.patch_object === 111) read.tts += op.patch_value.tts_content ?? '';
            for (const block of op.patch_value.content_block ?? []) {
              read.blocks += block.content.text_block.text;
            }
          }
        }
        return read;
      });
      for (const copy of [copies.delta, copies.blocks, copies.tts, copies.brief]) {
        expect(copy).not.toContain(token.slice(4, 16));
        expect(copy).toContain(REDACTED);
      }
      expect(copies.delta).toBe(copies.blocks);
      expect(copies.ended).toBe(true);
    });

    it('Yuanbao: redacts the token across text deltas; non-JSON lines reach the page as sent', async () => {
      const { page } = context();
      const read = await page.evaluate(async () => {
        const res = await fetch('/yuanbao.tencent.com/api/chat/conv-1', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"prompt":"hi"}',
        });
        const body = await res.text();
        let answer = '';
        const other: string[] = [];
        for (const frame of body.split('\n\n')) {
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data === undefined) continue;
          // The client's rule (§3.4): data starting with `[` or a lowercase letter is not JSON.
          if (/^(?:\[|[a-z])/.test(data)) {
            other.push(data);
            continue;
          }
          const chunk = JSON.parse(data) as { type?: string; msg?: string };
          if (chunk.type === 'text') answer += chunk.msg ?? '';
        }
        return { answer, other };
      });
      expect(read.answer).not.toContain(token.slice(4, 16));
      expect(read.answer).toContain(REDACTED);
      expect(read.answer).toContain('(rotate it soon).');
      expect(read.other).toEqual(['[MSGINDEX:2]', '[DONE]']);
    });

    it('Qianwen: each cumulative snapshot shows the guarded text so far', async () => {
      const { page } = context();
      const snapshots = await page.evaluate(async () => {
        const res = await fetch('/api/v2/chat?biz_id=ai_qwen&chat_client=h5', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"messages":[]}',
        });
        const body = await res.text();
        const list: string[] = [];
        for (const frame of body.split('\n\n')) {
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data === undefined || frame.startsWith('event: complete')) continue;
          const json = JSON.parse(data) as { data: { messages: { content: string }[] } };
          list.push(json.data.messages[0]?.content ?? '');
        }
        return list;
      });
      const last = snapshots.at(-1) ?? '';
      expect(last).toContain(REDACTED);
      expect(snapshots.join('\n')).not.toContain(token.slice(4, 16));
      snapshots.slice(1).forEach((s, i) => expect(s.startsWith(snapshots[i] ?? '')).toBe(true));
    });
  });
}
