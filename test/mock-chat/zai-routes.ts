/**
 * A mock of Z.ai (WIRE-FORMATS-2.md §3.5) for the integrity-bound send (issue 20):
 *
 * - `GET /zai`: a chat page that signs each message as the site does
 *   (zai-signature.ts, with WebCrypto) and posts it to the v2 completions route
 *   with the signature parameters in the URL and `x-signature`; it renders the
 *   answer's `answer`-phase deltas, or the HTTP error it got.
 * - `POST /api/v2/chat/completions?…&signature_timestamp=…`: rejects (400,
 *   `{"detail":"signature mismatch"}`) a request whose signature does not match
 *   its text, or whose `messages` and `signature_prompt` disagree; otherwise
 *   streams a Z.ai answer (thinking, then answer deltas with the scripted token
 *   split across them, then `done`).
 * - `GET /zai/log`: what the endpoint received, accepted or not (for the tests).
 *
 * Loopback only, like the rest of the mock chat.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendNoncePage } from './nonce-page.ts';
import { readBody } from './request-body.ts';
import { fakeGithubToken } from './scripted-answers.ts';
import { zaiSignatureMatches } from './zai-signature.ts';

export interface ZaiReceived {
  accepted: boolean;
  body: string;
}

const MAX_BODY_BYTES = 16 * 1024;
const MAX_LOG = 50;

const PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Z.ai (mock)</title>
  </head>
  <body>
    <main id="messages"></main>
    <form id="composer">
      <textarea id="prompt"></textarea>
      <button type="submit">Send</button>
    </form>
    <script nonce="{{nonce}}">
      /* {{sse-reader}} */
      const KEY = 'mock-zai-signing-key';
      const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
      const b64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
      async function sign(text) {
        const key = await crypto.subtle.importKey(
          'raw', new TextEncoder().encode(KEY), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'],
        );
        return hex(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text)));
      }
      function bubble(role, text) {
        const node = document.createElement('div');
        node.className = 'msg';
        node.dataset.role = role;
        node.textContent = text;
        document.getElementById('messages').append(node);
        return node;
      }
      // Enter sends, as on the site: focus stays in the input.
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
        const timestamp = String(Date.now());
        const requestId = crypto.randomUUID();
        const userId = 'user-1';
        const signature = await sign(
          'requestId,' + requestId + ',timestamp,' + timestamp + ',user_id,' + userId +
          '|' + b64(prompt) + '|' + timestamp,
        );
        const query = new URLSearchParams({
          timestamp, requestId, user_id: userId, version: '0.0.1', platform: 'web',
          signature_timestamp: timestamp,
        });
        try {
          const response = await fetch('/api/v2/chat/completions?' + query, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-signature': signature, 'x-fe-version': 'mock' },
            body: JSON.stringify({
              stream: true,
              model: 'glm-4.6',
              messages: [{ role: 'user', content: prompt }],
              signature_prompt: prompt,
              features: { enable_thinking: true, web_search: false },
              chat_id: 'chat-1',
              id: requestId,
            }),
          });
          if (!response.ok) {
            answer.dataset.error = 'HTTP ' + response.status + ' ' + (await response.text());
            answer.dataset.done = 'error';
            return;
          }
          input.value = '';
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          let text = '';
          const events = sseReader((_name, data) => {
            const event = JSON.parse(data);
            if (event.data && event.data.phase === 'answer') text += event.data.delta_content || '';
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

/** The scripted answer: thinking, then the token split across answer deltas, then done. */
export function zaiAnswerBody(): string {
  const token = fakeGithubToken();
  const event = (phase: string, extra: Record<string, unknown>) =>
    `data: ${JSON.stringify({ type: 'chat:completion', data: { phase, ...extra } })}\n\n`;
  return [
    event('thinking', { delta_content: 'The user wants the deploy token.' }),
    event('answer', { delta_content: `Here it is: ${token.slice(0, 11)}` }),
    event('answer', { delta_content: token.slice(11, 27) }),
    event('answer', { delta_content: `${token.slice(27)} (rotate it soon).` }),
    event('other', { usage: { total_tokens: 42 } }),
    event('done', { delta_content: '', done: true }),
  ].join('');
}

interface ZaiBody {
  messages?: { role?: string; content?: unknown }[];
  signature_prompt?: unknown;
}

/** True when the request's signature binds exactly the text it carries. */
function signedAsSent(url: URL, signature: string, body: string): boolean {
  let json: ZaiBody;
  try {
    json = JSON.parse(body) as ZaiBody;
  } catch {
    return false;
  }
  const prompt = json.signature_prompt;
  const last = json.messages?.filter((m) => m.role === 'user').at(-1)?.content;
  if (typeof prompt !== 'string' || last !== prompt) return false;
  const signed = {
    requestId: url.searchParams.get('requestId') ?? '',
    timestamp: url.searchParams.get('timestamp') ?? '',
    userId: url.searchParams.get('user_id') ?? '',
    prompt,
  };
  return zaiSignatureMatches(signed, signature);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ZaiRoutes {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createZaiRoutes(options: { chunkDelayMs: number }): ZaiRoutes {
  const log: ZaiReceived[] = [];
  const answer = async (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const bytes = Buffer.from(zaiAnswerBody(), 'utf8');
    for (let at = 0, step = 0; at < bytes.length; step++) {
      if (res.destroyed) return;
      const size = 1 + ((step * 7 + 5) % 48);
      res.write(bytes.subarray(at, at + size));
      at += size;
      await sleep(options.chunkDelayMs);
    }
    res.end();
  };
  const completions = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const body = await readBody(req, MAX_BODY_BYTES);
    const signature = String(req.headers['x-signature'] ?? '');
    const accepted = signedAsSent(url, signature, body);
    log.push({ accepted, body });
    if (log.length > MAX_LOG) log.shift();
    if (!accepted) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'signature mismatch' }));
      return;
    }
    await answer(res);
  };
  return {
    handle(req, res, url) {
      const route = `${req.method} ${url.pathname}`;
      if (route === 'GET /zai') {
        sendNoncePage(res, PAGE_HTML, []);
        return true;
      }
      if (route === 'GET /zai/log') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(log));
        return true;
      }
      if (
        route !== 'POST /api/v2/chat/completions' ||
        !url.searchParams.has('signature_timestamp')
      ) {
        return false;
      }
      completions(req, res, url).catch(() => res.destroy());
      return true;
    },
  };
}
