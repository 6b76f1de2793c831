/**
 * Mock sites for issue 20 §1, "any other site where rewriting fails": chat pages in
 * the OpenAI Chat Completions request format (recognised by its route, so the guard
 * rewrites their requests) whose servers refuse some requests.
 *
 * - `GET /bound-chat`: a generic integrity-bound site, NOT flagged in advance (no
 *   entry in integrity-bound-sites.ts): its page sends the SHA-256 of the person's
 *   text in `x-content-digest`, and `POST /bound/v1/chat/completions` answers 403
 *   (`content digest mismatch`) to a body whose last user message does not hash to
 *   it, as a request-signing API does; otherwise it streams an OpenAI chat answer.
 * - `GET /picky-chat`: a site whose `POST /picky/v1/chat/completions` answers 400
 *   (`unknown model`) to every request, whatever its text: a refusal unrelated to
 *   any rewrite.
 * - `GET /bound/log`, `GET /picky/log`: what each endpoint received (for the tests).
 *
 * Loopback only, like the rest of the mock chat.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendNoncePage } from './nonce-page.ts';
import { readBody } from './request-body.ts';
import { byteChunks, scriptedAnswer } from './scripted-answers.ts';
import { openAiChatSse } from './wire-answers.ts';

export interface RefusalReceived {
  accepted: boolean;
  body: string;
}

const MAX_BODY_BYTES = 64 * 1024;
const MAX_LOG = 50;

/** The chat page; `{{endpoint}}` is where it posts. */
const PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Signed chat (mock)</title>
  </head>
  <body>
    <main id="messages"></main>
    <form id="composer">
      <textarea id="prompt"></textarea>
      <button type="submit">Send</button>
    </form>
    <script nonce="{{nonce}}">
      /* {{sse-reader}} */
      const ENDPOINT = '{{endpoint}}';
      const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
      const digest = async (text) => hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
      function bubble(role, text) {
        const node = document.createElement('div');
        node.className = 'msg';
        node.dataset.role = role;
        node.textContent = text;
        document.getElementById('messages').append(node);
        return node;
      }
      document.getElementById('prompt').addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && !event.shiftKey) {
          event.preventDefault();
          document.getElementById('composer').requestSubmit();
        }
      });
      document.getElementById('composer').addEventListener('submit', async (event) => {
        event.preventDefault();
        const input = document.getElementById('prompt');
        const prompt = input.value;
        bubble('user', prompt);
        const answer = bubble('assistant', '');
        answer.dataset.done = 'false';
        try {
          const response = await fetch(ENDPOINT, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-content-digest': await digest(prompt) },
            body: JSON.stringify({
              model: 'mock-model',
              stream: true,
              messages: [{ role: 'user', content: prompt }],
            }),
          });
          if (!response.ok) {
            answer.dataset.error = 'HTTP ' + response.status;
            answer.dataset.done = 'error';
            return;
          }
          input.value = '';
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          let text = '';
          const events = sseReader((_name, data) => {
            if (data === '[DONE]') return;
            text += JSON.parse(data).choices[0]?.delta?.content || '';
            answer.textContent = text;
          });
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            events.push(decoder.decode(value, { stream: true }));
          }
          answer.dataset.done = 'true';
        } catch (error) {
          answer.dataset.error = String(error);
          answer.dataset.done = 'error';
        }
      });
    </script>
  </body>
</html>
`;

/** True when the last user message of `body` hashes to `claimed` (hex SHA-256). */
function digestMatches(body: string, claimed: string): boolean {
  let json: { messages?: { role?: string; content?: unknown }[] };
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    return false;
  }
  const last = json.messages?.filter((m) => m.role === 'user').at(-1)?.content;
  if (typeof last !== 'string') return false;
  return createHash('sha256').update(last, 'utf8').digest('hex') === claimed;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RewriteRefusalRoutes {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createRewriteRefusalRoutes(options: {
  chunkDelayMs: number;
}): RewriteRefusalRoutes {
  const logs: Record<'bound' | 'picky', RefusalReceived[]> = { bound: [], picky: [] };
  const record = (site: 'bound' | 'picky', entry: RefusalReceived) => {
    logs[site].push(entry);
    if (logs[site].length > MAX_LOG) logs[site].shift();
  };
  const refuse = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message } }));
  };
  const answer = async (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    for (const chunk of byteChunks(openAiChatSse(scriptedAnswer('hello')), 48)) {
      if (res.destroyed) return;
      res.write(chunk);
      await sleep(options.chunkDelayMs);
    }
    res.end();
  };
  const bound = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req, MAX_BODY_BYTES);
    const accepted = digestMatches(body, String(req.headers['x-content-digest'] ?? ''));
    record('bound', { accepted, body });
    if (!accepted) return refuse(res, 403, 'content digest mismatch');
    await answer(res);
  };
  const picky = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req, MAX_BODY_BYTES);
    record('picky', { accepted: false, body });
    refuse(res, 400, 'unknown model');
  };
  const page = (endpoint: string) => PAGE_HTML.replace('{{endpoint}}', endpoint);
  return {
    handle(req, res, url) {
      const route = `${req.method} ${url.pathname}`;
      switch (route) {
        case 'GET /bound-chat':
          sendNoncePage(res, page('/bound/v1/chat/completions'), []);
          return true;
        case 'GET /picky-chat':
          sendNoncePage(res, page('/picky/v1/chat/completions'), []);
          return true;
        case 'GET /bound/log':
        case 'GET /picky/log':
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          res.end(JSON.stringify(logs[route === 'GET /bound/log' ? 'bound' : 'picky']));
          return true;
        case 'POST /bound/v1/chat/completions':
          bound(req, res).catch(() => res.destroy());
          return true;
        case 'POST /picky/v1/chat/completions':
          picky(req, res).catch(() => res.destroy());
          return true;
        default:
          return false;
      }
    },
  };
}
