/**
 * E2E cases (issue 20): the extension guards ChatGLM (WIRE-FORMATS-2.md §3.5,
 * cumulative per part) and Perplexity (§4.1, diff-block patches) against mocks
 * of their endpoints (test/mock-chat/chatglm-perplexity-routes.ts), the page
 * reading each answer as that site's client does: ChatGLM's part replaced by
 * `logic_id` on every event, Perplexity's chunk list patched. Z.ai has its own
 * file (zai-signed-send.test.ts: its send is integrity-bound).
 *
 * Not a test file of its own: wire-format-cases.ts declares these with the
 * other wire formats, run in each browser extension-smoke.test.ts launches.
 */
import { describe, expect, it } from 'vitest';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import type { WireCaseContext } from './wire-format-cases.ts';

const REDACTED = '[redacted:github-pat]';

export function describeChatglmPerplexity(context: () => WireCaseContext): void {
  describe('ChatGLM and Perplexity answers (issue 20)', () => {
    const token = fakeGithubToken();

    it('ChatGLM: every re-sent part shows the guarded text so far, the token redacted', async () => {
      const { page } = context();
      const read = await page.evaluate(async () => {
        const res = await fetch('/chatglm/backend-api/assistant/stream', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"messages":[{"role":"user","content":[{"type":"text","text":"token?"}]}]}',
        });
        const body = await res.text();
        const parts = new Map<string, { type: string; text?: string }[]>();
        const texts: string[] = [];
        let status = '';
        for (const frame of body.split('\n\n')) {
          if (!frame.startsWith('data: ')) continue;
          const event = JSON.parse(frame.slice(6)) as {
            status: string;
            parts: { logic_id: string; content: { type: string; text?: string }[] }[];
          };
          status = event.status;
          for (const part of event.parts) parts.set(part.logic_id, part.content);
          const text = [...parts.values()].flat().find((i) => i.type === 'text')?.text;
          if (text !== undefined) texts.push(text);
        }
        return { texts, status };
      });
      const last = read.texts.at(-1) ?? '';
      expect(last).toContain(REDACTED);
      expect(last).toMatch(/^Here it is: .*\(rotate it soon\)\.$/);
      expect(read.texts.join('\n')).not.toContain(token.slice(4, 16));
      // Cumulative: what the page showed is never taken back by a later event.
      for (let i = 1; i < read.texts.length; i++) {
        expect((read.texts[i] as string).startsWith(read.texts[i - 1] as string)).toBe(true);
      }
      expect(read.status).toBe('finish');
    });

    it('Perplexity: the chunks its patches build carry the token redacted', async () => {
      const { page } = context();
      const read = await page.evaluate(async () => {
        const res = await fetch('/rest/sse/perplexity_ask', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"params":{"version":"2.18","dsl_query":"token?"},"query_str":"token?"}',
        });
        const body = await res.text();
        let chunks: string[] = [];
        let ended = false;
        for (const frame of body.split('\n\n')) {
          if (/^event: end_of_stream$/m.test(frame)) ended = true;
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data === undefined) continue;
          const json = JSON.parse(data) as {
            blocks?: {
              intended_usage?: string;
              diff_block?: { patches: { path: string; value: unknown }[] };
            }[];
          };
          for (const block of json.blocks ?? []) {
            for (const patch of block.diff_block?.patches ?? []) {
              if (patch.path === '') chunks = [...(patch.value as { chunks: string[] }).chunks];
              else chunks.push(patch.value as string);
            }
          }
        }
        return { text: chunks.join(''), ended };
      });
      expect(read.text).toContain(REDACTED);
      expect(read.text).not.toContain(token.slice(4, 16));
      expect(read.text).toMatch(/^Here it is: .*\(rotate it soon\)\.$/);
      expect(read.ended).toBe(true);
    });
  });
}
