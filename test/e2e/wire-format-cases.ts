/**
 * E2E cases: the fetch hook guards real provider wire formats. The mock chat streams its
 * scripted answers as OpenAI Chat Completions SSE and Anthropic Messages SSE (small
 * network chunks, the secret split across events), and the page reads them with a tiny
 * SSE reader, as their clients do.
 *
 * Not a test file of its own: extension-smoke.test.ts runs these cases in each browser
 * it launches, so the e2e run starts each browser once.
 */

import type { Page } from 'puppeteer';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeGithubToken, scriptedAnswer } from '../mock-chat/scripted-answers.ts';
import type { MockChat } from '../mock-chat/server.ts';
import { describeChatglmPerplexity } from './chatglm-perplexity-cases.ts';
import { describeChineseSites } from './chinese-site-cases.ts';
import { describeCopilotBigAgi } from './copilot-big-agi-cases.ts';
import { describeSiteHistory } from './site-history-cases.ts';
import { askMockChat, type ExtensionBrowser } from './launch.ts';

interface WireAnswer {
  text: string;
  requestId: string;
  finish: string | undefined;
  ending: string | undefined;
  /** The body bytes the page's reader received. */
  received: Buffer;
}

/** Asks the mock chat in one wire format; returns the rendered answer and what the page got. */
async function askIn(
  page: Page,
  format: 'openai' | 'anthropic',
  prompt: string,
): Promise<WireAnswer> {
  await page.select('#format', format);
  let text: string;
  try {
    text = await askMockChat(page, prompt);
  } finally {
    // Other cases ask in the page's default format.
    await page.select('#format', 'plain');
  }
  const meta = await page.$$eval('.msg[data-role="assistant"]', (nodes) => {
    const last = nodes[nodes.length - 1] as HTMLElement;
    const id = last.dataset.requestId ?? '';
    const received = (window as unknown as { __mockReceived: Record<string, string> })
      .__mockReceived[id];
    return {
      requestId: id,
      finish: last.dataset.finish,
      ending: last.dataset.ending,
      received: received ?? '',
    };
  });
  return { text, ...meta, received: Buffer.from(meta.received, 'base64') };
}

export interface WireCaseContext {
  chat: MockChat;
  page: Page;
  /** The browser with the extension (its pages read the audit log). */
  target?: ExtensionBrowser;
}

/** Declares the wire-format cases; `context()` gives the running mock chat and chat page. */
export function describeWireFormats(context: () => WireCaseContext): void {
  describe('provider wire formats', () => {
    const token = fakeGithubToken();
    let chat: MockChat;
    let page: Page;

    beforeAll(() => {
      ({ chat, page } = context());
    });

    it('redacts a secret split across OpenAI Chat Completions events', async () => {
      const answer = await askIn(page, 'openai', 'show me the secret');
      expect(answer.text).not.toContain(token);
      expect(answer.text).not.toContain(token.slice(4, 16));
      expect(answer.text).toContain('[redacted:github-pat]');
      expect(answer.text).toContain('Remember to rotate it');
      // The stream keeps its own framing and ending: the client saw every event.
      expect(answer.finish).toBe('stop');
      expect(answer.ending).toBe('[DONE]');
      expect(answer.received.toString('utf8')).not.toContain(token.slice(4, 16));
      const sent = chat.sent(answer.requestId)!;
      expect(sent.finished).toBe(true);
      expect(sent.bytes.toString('utf8')).toContain(token.slice(0, 8));
    });

    it('redacts a secret split across Anthropic Messages events', async () => {
      const answer = await askIn(page, 'anthropic', 'the secret, please');
      expect(answer.text).not.toContain(token);
      expect(answer.text).not.toContain(token.slice(4, 16));
      expect(answer.text).toContain('[redacted:github-pat]');
      expect(answer.finish).toBe('end_turn');
      expect(answer.ending).toBe('message_stop');
    });

    it('neutralises an exfiltration image streamed as OpenAI events', async () => {
      const { payload } = scriptedAnswer('image');
      const answer = await askIn(page, 'openai', 'an image');
      expect(answer.text).toContain('Here is the summary you asked for.');
      expect(answer.text).not.toContain(payload);
      expect(answer.text).not.toContain('](https://');
    });

    it('delivers a benign OpenAI answer byte for byte as the server sent it', async () => {
      const prompt = 'hello “friend”, 数据 ✓ 😀';
      const answer = await askIn(page, 'openai', prompt);
      expect(answer.text).toBe(scriptedAnswer(prompt).text);
      const sent = chat.sent(answer.requestId)!;
      expect(sent.finished).toBe(true);
      expect(answer.received.length).toBeGreaterThan(1000);
      expect(answer.received.equals(sent.bytes)).toBe(true);
    });

    it('leaves an unrelated JSON fetch untouched', async () => {
      const result = await page.evaluate(async () => {
        const res = await fetch('/api/status');
        return {
          isResponse: res instanceof Response,
          status: res.status,
          type: res.headers.get('content-type'),
          // A re-wrapped Response would have lost it: this is the browser's own object.
          length: res.headers.get('content-length'),
          body: (await res.json()) as { service: string; ok: boolean },
        };
      });
      expect(result).toMatchObject({
        isResponse: true,
        status: 200,
        type: 'application/json; charset=utf-8',
        body: { service: 'mock-chat', ok: true },
      });
      expect(Number(result.length)).toBeGreaterThan(0);
    });

    it('aborting a guarded stream through its AbortSignal stops the upstream', async () => {
      const outcome = await page.evaluate(async () => {
        const controller = new AbortController();
        const res = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'secret' }] }),
          signal: controller.signal,
        });
        const reader = res.body!.getReader();
        await reader.read();
        controller.abort();
        let error = '';
        try {
          for (;;) if ((await reader.read()).done) break;
        } catch (caught) {
          error = (caught as Error).name;
        }
        return { id: res.headers.get('x-mock-request-id') ?? '', error };
      });
      expect(outcome.error).toBe('AbortError');
      await expect.poll(() => chat.sent(outcome.id)?.closedEarly, { timeout: 5_000 }).toBe(true);
      expect(chat.sent(outcome.id)?.finished).toBe(false);
    });

    describeChineseSites(context);
    describeChatglmPerplexity(context);
    describeCopilotBigAgi(context);
    describeSiteHistory(context);
  });
}
