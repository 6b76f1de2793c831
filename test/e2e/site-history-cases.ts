/**
 * E2E cases (issue 20 §1, "history loads"): a poisoned conversation reloaded
 * from the new sites' history endpoints (test/mock-chat/site-history-routes.ts)
 * reaches the page with the earlier answer's token redacted and its Markdown
 * exfiltration image neutralised (the page renders every Markdown image it
 * finds; the attacker server counts 0 hits), while the person's own message
 * keeps what they wrote, where the adapter knows which message is theirs:
 * - HuggingChat (WIRE-FORMATS-2.md §4.6 "History"), both routes;
 * - Z.ai (§3.5, inferred from Open WebUI), read by the Open WebUI history adapter;
 * - Grok's `load-responses` (§4.3, path only): the generic adapter, which guards
 *   every string of it (the person's message too: docs/chat-sites.md).
 *
 * Not a test file of its own: wire-format-cases.ts declares these with the other
 * wire formats, run in each browser extension-smoke.test.ts launches.
 */
import { describe, expect, it } from 'vitest';
import {
  GROK_CONVERSATION_ID,
  HUGGINGCHAT_ID,
  ZAI_CHAT_ID,
  historyToken,
} from '../mock-chat/site-history-routes.ts';
import type { WireCaseContext } from './wire-format-cases.ts';

const REDACTED = '[redacted:github-pat]';

/** Fetches `path` as the site's page would and renders each Markdown image it holds. */
async function reload({ page }: WireCaseContext, path: string): Promise<unknown> {
  const text = await page.evaluate(async (at) => {
    const res = await fetch(at, { headers: { accept: 'application/json' } });
    const body = await res.text();
    for (const [, src] of body.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const img = document.createElement('img');
      img.src = src ?? '';
      document.body.append(img);
    }
    return body;
  }, path);
  // A rendered image has had time to be requested before the hits are read.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return JSON.parse(text) as unknown;
}

interface Said {
  user: string;
  answer: string;
}

function expectGuarded(context: WireCaseContext, said: Said, userKept: boolean): void {
  const token = historyToken();
  expect(said.answer).toContain(REDACTED);
  expect(said.answer).not.toContain(token.slice(4, 16));
  expect(said.answer).not.toContain(context.chat.attacker.url);
  if (userKept) expect(said.user).toContain(token);
  else expect(said.user).not.toContain(token);
}

export function describeSiteHistory(context: () => WireCaseContext): void {
  describe('history loads of the new sites (issue 20 §1)', () => {
    it.each([
      `/chat/api/conversation/${HUGGINGCHAT_ID}`,
      `/chat/api/v2/conversations/${HUGGINGCHAT_ID}`,
    ])('HuggingChat %s: the saved answer guarded, the person’s message kept', async (path) => {
      const hits = context().chat.attacker.hits();
      const doc = (await reload(context(), path)) as {
        messages?: Msg[];
        json?: { messages: Msg[] };
      };
      type Msg = { from: string; content: string; updates?: { type: string; text?: string }[] };
      const messages = doc.messages ?? doc.json?.messages ?? [];
      const answer = messages.find((m) => m.from === 'assistant');
      const said = {
        user: messages.find((m) => m.from === 'user')?.content ?? '',
        answer: answer?.content ?? '',
      };
      expectGuarded(context(), said, true);
      expect(answer?.updates?.find((u) => u.type === 'finalAnswer')?.text).toBe(said.answer);
      expect(context().chat.attacker.hits()).toBe(hits);
    });

    it('Z.ai: the chat document guarded by the Open WebUI history adapter', async () => {
      const hits = context().chat.attacker.hits();
      type Doc = { chat: { messages: { role: string; content: string }[] } };
      const doc = (await reload(context(), `/api/v1/chats/${ZAI_CHAT_ID}`)) as Doc;
      const messages = doc.chat.messages;
      const said = {
        user: messages.find((m) => m.role === 'user')?.content ?? '',
        answer: messages.find((m) => m.role === 'assistant')?.content ?? '',
      };
      expectGuarded(context(), said, true);
      expect(context().chat.attacker.hits()).toBe(hits);
    });

    it('Grok load-responses: every string guarded by the generic adapter', async () => {
      const hits = context().chat.attacker.hits();
      type Doc = { responses: { sender: string; message: string }[] };
      const path = `/rest/app-chat/conversations/${GROK_CONVERSATION_ID}/load-responses`;
      const doc = (await reload(context(), path)) as Doc;
      const said = {
        user: doc.responses.find((r) => r.sender === 'human')?.message ?? '',
        answer: doc.responses.find((r) => r.sender === 'assistant')?.message ?? '',
      };
      expectGuarded(context(), said, false);
      expect(context().chat.attacker.hits()).toBe(hits);
    });
  });
}
