/**
 * E2E cases (issue 20): the extension guards Microsoft Copilot's chat WebSocket
 * (WIRE-FORMATS-2.md §4.2) and big-AGI's answer stream (§4.7) against mocks of
 * their endpoints (test/mock-chat/copilot-big-agi-routes.ts), the page reading
 * each answer as that client does: Copilot's `appendText` frames appended until
 * `done`; big-AGI's tRPC lines read with `fetch`, `{t}` particles appended.
 * Copilot's send side (§4.2, issue 20 §2): the frames the mock's socket received
 * (`GET /c/api/received`) hold the typed token redacted, in the page's order, while
 * the page's own display of it is unchanged.
 *
 * Not a test file of its own: wire-format-cases.ts declares these with the
 * other wire formats, run in each browser extension-smoke.test.ts launches.
 */
import { describe, expect, it } from 'vitest';
import { BIG_AGI_EXFIL } from '../mock-chat/copilot-big-agi-routes.ts';
import { fakeGithubToken } from '../mock-chat/scripted-answers.ts';
import { readAuditStore } from './audit-store.ts';
import { OPTIONS_PATH, openExtensionPage } from './launch.ts';
import type { WireCaseContext } from './wire-format-cases.ts';

const REDACTED = '[redacted:github-pat]';

/** The audit log holds the token's redaction under `format`: that adapter guarded it. */
async function expectAudited({ target }: WireCaseContext, format: string): Promise<void> {
  if (target === undefined) throw new Error('no extension browser in the context');
  const options = await openExtensionPage(target, OPTIONS_PATH, '[data-testid="version"]');
  try {
    const audited = async () =>
      (await readAuditStore(options))?.some((r) => r.format === format && r.rule === 'github-pat');
    await expect.poll(audited, { timeout: 10_000 }).toBe(true);
  } finally {
    await options.close();
  }
}

export function describeCopilotBigAgi(context: () => WireCaseContext): void {
  describe('Copilot and big-AGI answers (issue 20)', () => {
    const token = fakeGithubToken();

    it('Copilot: the appendText frames on its chat socket carry the token redacted', async () => {
      const { chat, page } = context();
      // The page-hooks page lets the page open ws: to its own host (its CSP).
      const socketPage = await page.browser().newPage();
      try {
        await socketPage.goto(`${chat.url}/hooks`, { waitUntil: 'load' });
        const read = await socketPage.evaluate(
          () =>
            new Promise<{ answer: string; title: string; done: boolean; closed: boolean }>(
              (resolve, reject) => {
                const url = `ws://${location.host}/c/api/chat?api-version=2`;
                const socket = new WebSocket(url);
                const got = { answer: '', title: '', done: false, closed: false };
                socket.onopen = () =>
                  socket.send(
                    JSON.stringify({
                      event: 'send',
                      conversationId: 'cv-e2e',
                      content: [{ type: 'text', text: 'the token?' }],
                      mode: 'chat',
                    }),
                  );
                socket.onmessage = (message) => {
                  const frame = JSON.parse(String(message.data)) as Record<string, string>;
                  if (frame.event === 'appendText') got.answer += frame.text;
                  if (frame.event === 'titleUpdate') got.title = frame.title ?? '';
                  if (frame.event === 'done') got.done = true;
                };
                socket.onclose = () => resolve({ ...got, closed: true });
                socket.onerror = () => reject(new Error('socket error'));
                setTimeout(() => reject(new Error('no close')), 15_000);
              },
            ),
        );
        expect(read.answer).toBe(`Here it is: ${REDACTED} (rotate it soon).`);
        expect(read.title).toBe(`Token ${REDACTED}`);
        expect(read.done).toBe(true);
        expect(read.closed).toBe(true);
        expect(JSON.stringify(read)).not.toContain(token.slice(4, 16));
        // Guarded as Copilot's format (its own adapter, not the generic socket fallback).
        await expectAudited(context(), 'copilot');
      } finally {
        await socketPage.close();
      }
    });

    it('Copilot send side: a typed token leaves redacted, the page still shows it, frames in order', async () => {
      const { chat, page } = context();
      const socketPage = await page.browser().newPage();
      try {
        await socketPage.goto(`${chat.url}/hooks`, { waitUntil: 'load' });
        const typed = `my key is ${token}, keep it`;
        const sent = await socketPage.evaluate(
          (text) =>
            new Promise<{ frames: string[]; shown: string }>((resolve, reject) => {
              // The page's own display of what the person typed (never rewritten).
              const shown = document.createElement('p');
              shown.textContent = text;
              document.body.append(shown);
              const socket = new WebSocket(`ws://${location.host}/c/api/chat?api-version=2`);
              const frames = [
                JSON.stringify({ event: 'setOptions', supportedFeatures: [], ads: null }),
                JSON.stringify({
                  event: 'send',
                  conversationId: 'cv-send-e2e',
                  content: [{ type: 'text', text }],
                  mode: 'chat',
                }),
                JSON.stringify({
                  event: 'send',
                  conversationId: 'cv-send-e2e',
                  content: [{ type: 'text', text: 'and one more thing' }],
                  mode: 'chat',
                }),
              ];
              // All three in one task: the held send frame must not be overtaken.
              socket.onopen = () => frames.forEach((frame) => socket.send(frame));
              socket.onclose = () => resolve({ frames, shown: shown.textContent ?? '' });
              socket.onerror = () => reject(new Error('socket error'));
              setTimeout(() => reject(new Error('no close')), 15_000);
            }),
          typed,
        );
        expect(sent.shown).toBe(typed);
        const received = await socketPage.evaluate(async () => {
          const res = await fetch('/c/api/received');
          return (await res.json()) as string[];
        });
        const mine = received.filter(
          (f) => f.includes('cv-send-e2e') || f.includes('"setOptions"'),
        );
        expect(mine.slice(-3).map((f) => (JSON.parse(f) as { event: string }).event)).toEqual([
          'setOptions',
          'send',
          'send',
        ]);
        const [options, secret, later] = mine.slice(-3);
        expect(options).toBe(sent.frames[0]);
        expect(secret).not.toContain(token.slice(4, 16));
        const content = (JSON.parse(secret ?? '{}') as { content: { text: string }[] }).content;
        expect(content[0]?.text).toBe(`my key is ${REDACTED}, keep it`);
        expect(later).toBe(sent.frames[2]);
        expect(JSON.stringify(received)).not.toContain(token.slice(4, 16));
      } finally {
        await socketPage.close();
      }
    });

    it('big-AGI: the {t} particles carry the token redacted and the exfil image neutralised', async () => {
      const { page } = context();
      const read = await page.evaluate(async () => {
        const res = await fetch('/api/edge/aix.chatGenerateContent?batch=1', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            '0': {
              json: {
                access: { dialect: 'openai' },
                model: { id: 'mock-gpt-1', acceptsOutputs: ['text'] },
                chatGenerate: {
                  systemMessage: null,
                  chatSequence: [{ role: 'user', parts: [{ pt: 'text', text: 'the token?' }] }],
                },
                context: { method: 'chat-generate', name: 'conversation', ref: 'c-1' },
                streaming: true,
              },
            },
          }),
        });
        const body = await res.text();
        let answer = '';
        let end = '';
        for (const line of body.split('\n')) {
          if (line === '') continue;
          const json = (JSON.parse(line) as { json: unknown }).json;
          if (!Array.isArray(json) || json[1] !== 1) continue;
          const particle = (json[2] as Record<string, string>[][])[0]?.[0] ?? {};
          if (typeof particle.t === 'string') answer += particle.t;
          if (particle.cg === 'end') end = particle.tokenStopReason ?? '';
        }
        return { answer, end };
      });
      expect(read.answer).toContain(`Here it is: ${REDACTED} (rotate it soon).`);
      expect(read.answer).not.toContain(token.slice(4, 16));
      expect(read.answer).not.toContain(BIG_AGI_EXFIL);
      expect(read.answer).toMatch(/ done\.$/);
      expect(read.end).toBe('ok');
      await expectAudited(context(), 'big-agi');
    });
  });
}
