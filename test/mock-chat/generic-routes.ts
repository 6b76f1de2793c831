/**
 * Mock chat routes for answers no adapter claims by URL or content type (issue 18 §1):
 *
 * - `GET /generic`: a page that posts a chat request (`messages`) with `fetch` and reads
 *   the answer's body as it streams, keeping every text it read (`window.__views`).
 * - `POST /api/stream`: an OpenAI-compatible proxy as the issue found them: served as
 *   `text/plain`, 2 KB of anti-buffering SSE comments first, then `{"status":"connected"}`,
 *   a role-only delta, and chunks that carry only `choices[].delta`, the scripted
 *   secret split across them; no `/chat/completions` in the URL, no `object` field.
 * - `POST /api/stream-binary`: an answer that is no text at all (a gRPC-web-like frame,
 *   `application/octet-stream`) carrying the same secret: it cannot be decoded.
 * - `POST /api/stream-generic`: an SSE answer in a shape no adapter knows (`output.text`
 *   deltas): the generic structural adapter guards it (issue 18: counted as generic).
 *
 * Loopback only, like the rest of the mock chat.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendNoncePage } from './nonce-page.ts';
import { fakeGithubToken } from './scripted-answers.ts';

const PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Generic answers</title>
  </head>
  <body>
    <h1>Answers in no known format</h1>
    <main id="answers"></main>
    <script nonce="{{nonce}}">
      /* {{sse-reader}} */
      window.__views = [];
      /** Posts a chat request to \`path\`; renders the answer's deltas as they stream. */
      window.askGeneric = async function (path) {
        const node = document.createElement('div');
        node.className = 'answer';
        node.dataset.done = 'false';
        document.getElementById('answers').append(node);
        let text = '';
        let raw = '';
        let bytes = 0;
        try {
          const response = await fetch(path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              model: 'proxy-model',
              stream: true,
              messages: [{ role: 'user', content: 'What is the deploy token?' }],
            }),
          });
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          const events = sseReader((_name, data) => {
            if (data === '[DONE]') return;
            try {
              const delta = JSON.parse(data).choices?.[0]?.delta?.content;
              if (typeof delta === 'string') {
                text += delta;
                node.textContent = text;
              }
            } catch {
              // not an answer event
            }
          });
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            bytes += value.byteLength;
            const chunk = decoder.decode(value, { stream: true });
            raw += chunk;
            window.__views.push(raw, node.textContent);
            events.push(chunk);
          }
          events.end();
          node.dataset.done = 'true';
        } catch (error) {
          node.dataset.done = 'error';
          node.dataset.error = String(error);
        }
        node.dataset.bytes = String(bytes);
        return { text, bytes, done: node.dataset.done };
      };
    </script>
  </body>
</html>
`;

/** The secret this route streams (the scripted one). */
export function genericRouteSecret(): string {
  return fakeGithubToken();
}

/** The proxy's body: padding, a status event, a role-only delta, content deltas. */
export function proxyStreamBody(): string {
  const token = genericRouteSecret();
  const event = (json: unknown) => `data: ${JSON.stringify(json)}\n\n`;
  const delta = (content: string) => event({ choices: [{ index: 0, delta: { content } }] });
  return (
    `: ${'-'.repeat(2048)}\n\n` +
    event({ status: 'connected' }) +
    event({ choices: [{ index: 0, delta: { role: 'assistant' } }] }) +
    delta('Sure. The deploy token is ') +
    delta(token.slice(0, 10)) +
    delta(token.slice(10, 25)) +
    delta(token.slice(25)) +
    delta('. Rotate it after the release.') +
    event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
    'data: [DONE]\n\n'
  );
}

/** An answer in no known shape: SSE events whose text is in `output.text`. */
export function genericShapeBody(): string {
  const event = (json: unknown) => `data: ${JSON.stringify(json)}\n\n`;
  return (
    event({ output: { text: 'Hello' } }) +
    event({ output: { text: ', nothing secret here.' } }) +
    event({ output: { done: true } })
  );
}

/** A binary body: a gRPC-web-like frame around the secret. */
export function binaryBody(): Buffer {
  const payload = Buffer.from(`\n\u0010${genericRouteSecret()}`, 'utf8');
  const header = Buffer.from([0, 0, 0, 0, payload.length]);
  return Buffer.concat([header, payload, Buffer.from([0x80, 0xff, 0xfe, 0x00])]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface GenericRoutes {
  /** Answers the request when it is one of these routes; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createGenericRoutes(options: { chunkDelayMs: number }): GenericRoutes {
  const stream = async (res: ServerResponse, body: Buffer, type: string) => {
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    // Network chunks of 1..64 bytes, cut anywhere (inside events and UTF-8 sequences).
    for (let at = 0, step = 0; at < body.length; step++) {
      if (res.destroyed) return;
      const size = 1 + ((step * 5 + 3) % 64);
      res.write(body.subarray(at, at + size));
      at += size;
      await sleep(options.chunkDelayMs);
    }
    res.end();
  };
  return {
    handle(req, res, url) {
      const route = `${req.method} ${url.pathname}`;
      if (route === 'GET /generic') {
        sendNoncePage(res, PAGE_HTML, []);
        return true;
      }
      const bodies: Record<string, () => [Buffer, string]> = {
        'POST /api/stream': () => [
          Buffer.from(proxyStreamBody(), 'utf8'),
          'text/plain; charset=utf-8',
        ],
        'POST /api/stream-binary': () => [binaryBody(), 'application/octet-stream'],
        'POST /api/stream-generic': () => [
          Buffer.from(genericShapeBody(), 'utf8'),
          'text/event-stream; charset=utf-8',
        ],
      };
      const body = Object.hasOwn(bodies, route) ? bodies[route] : undefined;
      if (body === undefined) return false;
      // The request body is not needed: drain it, then answer.
      req.resume();
      req.on('end', () => {
        const done = stream(res, ...body());
        done.catch(() => res.destroy());
      });
      return true;
    },
  };
}
