/**
 * Mock chat routes for the contexts the page reads an answer from besides its own window
 * (issue 18 §2, test/e2e/contexts.test.ts):
 *
 * - `GET /contexts`: a page (contexts.html) that asks `POST /v1/chat/completions` from an
 *   about:blank iframe used in the same task it was appended (through `contentWindow`
 *   and by index), from a srcdoc and a blob: iframe's own script, and from a dedicated
 *   classic, module and blob: worker and a shared worker.
 * - `GET /contexts/open`: the same page under a policy that lets blob: workers load the
 *   site's scripts (`script-src 'self' blob:`); `/contexts` has the mock chat's strict
 *   nonce-only policy, under which a blob: worker can load no script.
 * - `GET /contexts/worker.js`, `/contexts/shared-worker.js`: classic worker scripts that
 *   answer `{ url, prompt }` with `{ text, views, error }` (the answer's text, every text
 *   the worker could read while it streamed, and an error if the read failed).
 * - `GET /contexts/module-worker.js`: the same as a module, importing its reader from
 *   `/contexts/answer-reader.js` by a relative specifier.
 * - `GET /contexts/status-worker.js` (reads `/api/status`, no chat request),
 *   `/contexts/throwing-worker.js` (answers, then throws its own error) and
 *   `/contexts/xhr-worker.js` (asks with XMLHttpRequest).
 *
 * The page's policy is the mock chat's strict one (nonce-page.ts), plus blob: frames and
 * workers, as chat sites that use them must allow.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { sendNoncePage } from './nonce-page.ts';

const here = dirname(fileURLToPath(import.meta.url));
const PAGE_HTML = readFileSync(join(here, 'contexts.html'), 'utf8');

/** Reads the answer as a chat client in a worker does: the body stream, chunk by chunk. */
const READ_ANSWER = `async function readAnswer(url, prompt) {
  const textOf = (sse) => {
    let text = '';
    for (const line of sse.split('\\n')) {
      if (!line.startsWith('data:') || line.includes('[DONE]')) continue;
      try {
        text += JSON.parse(line.slice(5)).choices[0].delta.content || '';
      } catch {
        // A line cut by the chunking: read on the next pass.
      }
    }
    return text;
  };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: prompt }] }),
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const views = [];
    let sse = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sse += decoder.decode(value, { stream: true });
      views.push(sse);
    }
    return { text: textOf(sse), views, error: '' };
  } catch (error) {
    return { text: '', views: [], error: String(error) };
  }
}
`;

const SCRIPTS: Record<string, string> = {
  '/contexts/worker.js': `${READ_ANSWER}
self.onmessage = async (event) => {
  self.postMessage(await readAnswer(event.data.url, event.data.prompt));
};
`,
  '/contexts/shared-worker.js': `${READ_ANSWER}
self.onconnect = (connect) => {
  const port = connect.ports[0];
  port.onmessage = async (event) => {
    port.postMessage(await readAnswer(event.data.url, event.data.prompt));
  };
};
`,
  '/contexts/answer-reader.js': `export ${READ_ANSWER}`,
  // Not a chat request: the worker reads the mock chat's status document as it is.
  '/contexts/status-worker.js': `self.onmessage = async (event) => {
  try {
    const response = await fetch('/api/status');
    self.postMessage({ text: await response.text(), views: [], error: '' });
  } catch (error) {
    self.postMessage({ text: '', views: [], error: String(error) });
  }
};
`,
  // Throws at once when it gets a message: the page's own error, not the guard's.
  '/contexts/throwing-worker.js': `self.onmessage = () => {
  self.postMessage({ text: 'threw', views: [], error: '' });
  throw new Error('the page worker’s own error');
};
`,
  // XMLHttpRequest in a worker: refused there (the hooks relay fetch only).
  '/contexts/xhr-worker.js': `self.onmessage = (event) => {
  try {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', event.data.url);
    xhr.onload = () => self.postMessage({ text: xhr.responseText, views: [], error: '' });
    xhr.onerror = () => self.postMessage({ text: '', views: [], error: 'xhr error' });
    xhr.send(JSON.stringify({ stream: true, messages: [{ role: 'user', content: event.data.prompt }] }));
  } catch (error) {
    self.postMessage({ text: '', views: [], error: String(error) });
  }
};
`,
  '/contexts/module-worker.js': `import { readAnswer } from './answer-reader.js';
self.onmessage = async (event) => {
  self.postMessage(await readAnswer(event.data.url, event.data.prompt));
};
`,
};

/**
 * The same page under a policy that lets a blob: worker load the site's own scripts
 * (`script-src` with 'self' and blob:), as sites that start workers from blob: URLs
 * have: there the extension hooks the workers.
 */
function sendOpenPage(res: ServerResponse): void {
  const nonce = randomBytes(16).toString('base64');
  const body = PAGE_HTML.replaceAll('{{nonce}}', nonce);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': [
      "default-src 'self'",
      `script-src 'nonce-${nonce}' 'self' blob:`,
      "worker-src 'self' blob:",
      "frame-src 'self' blob:",
      "base-uri 'none'",
    ].join('; '),
  });
  res.end(body);
}

export interface ContextRoutes {
  /** Answers the request when it is one of these routes; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createContextRoutes(): ContextRoutes {
  return {
    handle(req, res, url) {
      if (req.method !== 'GET') return false;
      if (url.pathname === '/contexts') {
        sendNoncePage(res, PAGE_HTML, ["frame-src 'self' blob:", "worker-src 'self' blob:"]);
        return true;
      }
      if (url.pathname === '/contexts/open') {
        sendOpenPage(res);
        return true;
      }
      const script = SCRIPTS[url.pathname];
      if (script === undefined) return false;
      res.writeHead(200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(script);
      return true;
    },
  };
}
