/**
 * Issue 5 §3 (reference only from the popup, marks that survive a reload): a saved
 * conversation the mock chat page reloads from `GET /api/v1/chats/<id>` (the shape
 * demo-routes.ts serves), so the same history is sent again after a reload. The
 * answer is Markdown, so what the page shows differs from what it sends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The saved conversation's id (a uuid, as Open WebUI's are). */
export const REFERENCE_CHAT_ID = '3c9d5e1a-7b2f-4d8e-9a6c-1f0e2d3b4a5c';

export const REFERENCE_CHAT = [
  { id: 'r1', role: 'user', content: 'Which roses survive a hard frost?' },
  {
    id: 'r2',
    role: 'assistant',
    content: '**Rugosa** roses are the hardiest; mulch their roots before the first frost.',
  },
] as const;

export interface ReferenceOnlyRoutes {
  /** Handles the request when it is one of these routes; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createReferenceOnlyRoutes(): ReferenceOnlyRoutes {
  return {
    handle(req, res, url) {
      if (req.method !== 'GET' || url.pathname !== `/api/v1/chats/${REFERENCE_CHAT_ID}`) {
        return false;
      }
      const body = JSON.stringify({ id: REFERENCE_CHAT_ID, chat: { messages: REFERENCE_CHAT } });
      res
        .writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'cache-control': 'no-store',
        })
        .end(body);
      return true;
    },
  };
}
