/**
 * E2E: the XHR, EventSource and WebSocket hooks of the built extension, in real Chromium
 * and Firefox ESR, on the mock chat's `/hooks` page (page-hooks.html). Each transport
 * streams the scripted secret split across events; the rendered answer shows the
 * redaction, and no text the page could read while it streamed holds the secret. A
 * harmless answer arrives unchanged, and the patched constructors look native.
 */

import type { Page } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READING_PATHS } from '../../src/page/reading-paths.ts';
import { startMockChat, type MockChat } from '../mock-chat/server.ts';
import { fakeGithubToken, scriptedAnswer } from '../mock-chat/scripted-answers.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  launchChromium,
  launchFirefox,
  openExtensionPage,
  POPUP_PATH,
  ROOT,
  tabIdOf,
  type ExtensionBrowser,
} from './launch.ts';

/** The failure notice as the person reads it (the extension's own `_locales`). */
const FAILED_NOTICE = (
  JSON.parse(readFileSync(join(ROOT, '_locales', 'en', 'messages.json'), 'utf8')) as Record<
    string,
    { message: string }
  >
).notice_failed!.message;

/** The notices shown in a tab, read from the extension (closed shadow root). */
async function noticesIn(target: ExtensionBrowser, url: string): Promise<string[]> {
  const extensionPage = await openExtensionPage(target, POPUP_PATH, 'body');
  try {
    const tabId = await tabIdOf(extensionPage, url);
    return await extensionPage.evaluate(async (id: number) => {
      const [result] = await chrome.scripting.executeScript({
        target: { tabId: id },
        func: () => {
          const host = document.querySelector('chat-stream-guard-notices');
          if (host === null) return [];
          const dom = (
            globalThis as unknown as {
              chrome?: { dom?: { openOrClosedShadowRoot?(e: Element): ShadowRoot | null } };
            }
          ).chrome?.dom;
          const root =
            dom?.openOrClosedShadowRoot?.(host) ??
            (host as Element & { openOrClosedShadowRoot: ShadowRoot | null })
              .openOrClosedShadowRoot;
          return Array.from(
            root?.querySelectorAll('.notice .text') ?? [],
            (n) => n.textContent ?? '',
          );
        },
      });
      return (result?.result as string[] | undefined) ?? [];
    }, tabId);
  } finally {
    await extensionPage.close();
  }
}

type Transport =
  | 'xhr'
  | 'xhr-arraybuffer'
  | 'xhr-blob'
  | 'xhr-json'
  | 'xhr-sync'
  | 'xhr-sync-get'
  | 'event-source'
  | 'event-source-drop'
  | 'web-socket'
  | 'web-socket-binary';

interface Asked {
  /** What the page returned as the answer's text. */
  text: string;
  /** The rendered answer element's text. */
  rendered: string;
  /** Every text the page read while it streamed (responseText, event data, messages). */
  views: string[];
  done: string | undefined;
  length: string | undefined;
}

async function ask(page: Page, kind: Transport, prompt: string): Promise<Asked> {
  const text = await page.evaluate(
    (k: string, p: string) =>
      (window as unknown as { askVia(k: string, p: string): Promise<string> }).askVia(k, p),
    kind,
    prompt,
  );
  return page
    .evaluate(() => {
      const views = (window as unknown as { __hookViews: string[] }).__hookViews.splice(0);
      const nodes = document.querySelectorAll<HTMLElement>('.answer');
      const last = nodes[nodes.length - 1]!;
      return {
        rendered: last.textContent ?? '',
        views,
        done: last.dataset.done,
        length: last.dataset.length,
      };
    })
    .then((rest) => ({ text, ...rest }));
}

/** The answer text an OpenAI Chat Completions SSE body carries (its content deltas). */
function openAiText(sse: string): string {
  let text = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data:') || line.includes('[DONE]')) continue;
    const chunk = JSON.parse(line.slice(5)) as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

describe.each([
  { name: 'chromium', launch: launchChromium },
  { name: 'firefox', launch: launchFirefox },
])('page hooks in $name', ({ launch }) => {
  const token = fakeGithubToken();
  let chat: MockChat;
  let target: ExtensionBrowser;
  let page: Page;

  beforeAll(async () => {
    // Slow enough that an abort lands while the server is still writing.
    chat = await startMockChat({ chunkDelayMs: 15 });
    target = await launch();
    page = await target.browser.newPage();
    await page.goto(`${chat.url}/hooks`, { waitUntil: 'load' });
  });

  afterAll(async () => {
    await target?.close();
    await chat?.close();
  });

  it('patched constructors look native to the page’s first script', async () => {
    const probe = await page.evaluate(
      () => (window as unknown as { __hookProbe: Record<string, string | number> }).__hookProbe,
    );
    expect(probe.xhr).toMatch(/^function XMLHttpRequest\(\) \{\s*\[native code\]\s*\}$/);
    expect(probe.eventSource).toMatch(/^function EventSource\(\) \{\s*\[native code\]\s*\}$/);
    expect(probe.webSocket).toMatch(/^function WebSocket\(\) \{\s*\[native code\]\s*\}$/);
    expect(probe.xhrName).toBe('XMLHttpRequest');
    expect(probe.webSocketLength).toBe(1);
    const checks = await page.evaluate(() => {
      const xhr = new XMLHttpRequest();
      return {
        instance: xhr instanceof XMLHttpRequest && xhr instanceof EventTarget,
        ctor: xhr.constructor === XMLHttpRequest,
        own: Object.getOwnPropertyNames(xhr).length,
        done: XMLHttpRequest.DONE,
        getter: Function.prototype.toString.call(
          Object.getOwnPropertyDescriptor(XMLHttpRequest.prototype, 'responseText')!.get,
        ),
        add: EventSource.prototype.addEventListener === EventTarget.prototype.addEventListener,
      };
    });
    expect(checks).toMatchObject({ instance: true, ctor: true, own: 0, done: 4, add: true });
    expect(checks.getter).toMatch(/\[native code\]/);
  });

  it.each(['xhr', 'event-source', 'web-socket'] as const)(
    'redacts a secret split across events read through %s',
    async (kind) => {
      const answer = await ask(page, kind, 'show me the secret');
      expect(answer.done).toBe('true');
      expect(answer.rendered).toContain('[redacted:github-pat]');
      expect(answer.rendered).toContain('Remember to rotate it');
      expect(answer.rendered).not.toContain(token.slice(4, 14));
      expect(answer.views.length).toBeGreaterThan(3);
      for (const view of answer.views) expect(view).not.toContain(token.slice(4, 14));
      if (kind === 'xhr') expect(answer.length).toBe('null');
    },
  );

  // Issue 18 §3: every reading path.
  it.each([
    'xhr-arraybuffer',
    'xhr-blob',
    'xhr-json',
    'event-source-drop',
    'web-socket-binary',
  ] as const)('redacts a secret read through %s', async (kind) => {
    const answer = await ask(page, kind, 'show me the secret');
    expect(answer.done).toBe('true');
    expect(answer.rendered).toContain('[redacted:github-pat]');
    expect(answer.rendered).toContain('Remember to rotate it');
    for (const view of answer.views) {
      for (let at = 0; at + 8 <= token.length; at++) {
        expect(view).not.toContain(token.slice(at, at + 8));
      }
    }
    if (kind.startsWith('xhr-')) expect(answer.length).toBe('null');
  });

  it('the EventSource answer really dropped mid-secret and reconnected', async () => {
    await ask(page, 'event-source-drop', 'show me the secret');
    const errors = await page.$$eval(
      '.answer',
      (nodes) => (nodes.at(-1) as HTMLElement).dataset.errors,
    );
    expect(Number(errors)).toBeGreaterThanOrEqual(1);
  });

  // The guard runs in the ISOLATED world and cannot answer before a synchronous `send()`
  // returns: a chat request is refused before it leaves (the send hook), a chat answer
  // when it arrives; the page sees a NetworkError, the person a notice.
  it.each(['xhr-sync', 'xhr-sync-get'] as const)(
    'refuses a synchronous chat request (%s) with a notice: a network error, nothing read',
    async (kind) => {
      const fresh = await target.browser.newPage();
      try {
        const url = `${chat.url}/hooks?${kind}`;
        await fresh.goto(url, { waitUntil: 'load' });
        const answer = await ask(fresh, kind, 'show me the secret');
        expect(JSON.parse(answer.text)).toEqual({ error: 'NetworkError', status: 0, text: '' });
        await expect
          .poll(() => noticesIn(target, url), { timeout: 10_000 })
          .toContain(FAILED_NOTICE);
      } finally {
        await fresh.close();
      }
    },
  );

  it('leaves a synchronous request that is no chat answer alone', async () => {
    const status = await page.evaluate(() => {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', '/api/status', false);
      xhr.send();
      return xhr.responseText;
    });
    expect(JSON.parse(status)).toMatchObject({ service: 'mock-chat', ok: true });
  });

  it.each([
    'xhr',
    'xhr-arraybuffer',
    'xhr-blob',
    'xhr-json',
    'event-source',
    'event-source-drop',
    'web-socket',
    'web-socket-binary',
  ] as const)('delivers a harmless answer through %s unchanged', async (kind) => {
    const prompt = 'hello “friend”, 数据 ✓ 😀';
    const answer = await ask(page, kind, prompt);
    expect(answer.text).toBe(scriptedAnswer(prompt).text);
  });

  /** In a fresh tab: page code breaks built-ins after the hooks are in, then asks. */
  async function askAfter(
    breakage: 'stream polyfill' | 'broken built-ins',
  ): Promise<{ text: string; error: string }> {
    const fresh = await target.browser.newPage();
    try {
      await fresh.goto(`${chat.url}/hooks`, { waitUntil: 'load' });
      return await fresh.evaluate(async (kind: string) => {
        const page = window as unknown as Record<string, unknown>;
        if (kind === 'stream polyfill') {
          // As web-streams-polyfill does: the global is replaced by a JavaScript class.
          page.ReadableStream = class ReadableStream {
            getReader() {
              return { read: () => Promise.resolve({ done: true }) };
            }
          };
        } else {
          page.TextDecoder = function TextDecoder() {
            throw new Error('polyfill');
          };
          RegExp.prototype.exec = () => null;
          (Object.prototype as Record<string, unknown>).choices = [{ delta: { content: 'x' } }];
          Object.defineProperty(Object.prototype, 'delta', {
            get() {
              throw new Error('polluted');
            },
            configurable: true,
          });
        }
        try {
          const response = await fetch('/v1/chat/completions', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              stream: true,
              messages: [{ role: 'user', content: 'show me the secret' }],
            }),
          });
          return { text: await response.text(), error: '' };
        } catch (error) {
          return { text: '', error: String(error) };
        }
      }, breakage);
    } finally {
      await fresh.close();
    }
  }

  it('a polyfilled ReadableStream (web-streams-polyfill) does not break a guarded fetch', async () => {
    const answer = await askAfter('stream polyfill');
    expect(answer.error).toBe('');
    expect(answer.text).not.toContain('[object ReadableStream]');
    const text = openAiText(answer.text);
    expect(text).toContain('[redacted:github-pat]');
    expect(text).not.toContain(token.slice(4, 14));
  });

  it('a throwing TextDecoder, a broken RegExp.prototype.exec and a polluted Object.prototype open nothing', async () => {
    const answer = await askAfter('broken built-ins');
    expect(answer.error).toBe('');
    const text = openAiText(answer.text);
    expect(text).toContain('[redacted:github-pat]');
    expect(text).not.toContain(token.slice(4, 14));
  });

  // Issue 18 §5: the hooks' list of reading paths (each tested in
  // test/unit/page/reading-paths.test.ts) names every way this browser offers.
  it('lists every way this browser offers to read an answer', async () => {
    const offered = await page.evaluate(() => {
      const methods = (proto: object) =>
        Object.getOwnPropertyNames(proto).filter((name) => {
          const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
          return typeof descriptor.value === 'function' && name !== 'constructor';
        });
      const accepted = (set: (value: string) => string, values: string[]) =>
        values.filter((value) => set(value) === value);
      const candidates = ['', 'text', 'json', 'arraybuffer', 'blob', 'document', 'stream'];
      return {
        response: methods(Response.prototype),
        stream: methods(ReadableStream.prototype).filter((name) => name !== 'cancel'),
        asyncIterable: Symbol.asyncIterator in ReadableStream.prototype,
        responseTypes: accepted((value) => {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', '/api/status');
          xhr.responseType = value as XMLHttpRequestResponseType;
          return xhr.responseType;
        }, candidates),
        binaryTypes: accepted(
          (value) => {
            const socket = new WebSocket(`ws://${location.host}/nowhere`);
            socket.binaryType = value as BinaryType;
            const read = socket.binaryType;
            socket.close();
            return read;
          },
          ['blob', 'arraybuffer', 'text'],
        ),
      };
    });
    const listed = Object.keys(READING_PATHS).join('\n');
    for (const name of offered.response) expect(listed).toContain(`fetch: ${name}()`);
    for (const name of offered.stream) expect(listed).toContain(`fetch: body.${name}(`);
    if (offered.asyncIterable) expect(listed).toContain('fetch: for await (… of body)');
    expect(offered.responseTypes).toEqual(expect.arrayContaining(['', 'text', 'json']));
    for (const type of offered.responseTypes)
      expect(listed).toContain(`xhr: responseType "${type}"`);
    expect(offered.binaryTypes).toEqual(['blob', 'arraybuffer']);
    for (const type of offered.binaryTypes) expect(listed).toContain(`binaryType "${type}"`);
  });

  it('a guarded answer read with Response.textStream(), where the browser has it', async () => {
    const read = await page.evaluate(async () => {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          stream: true,
          messages: [{ role: 'user', content: 'show me the secret' }],
        }),
      });
      const withText = response as Response & { textStream?(): ReadableStream<string> };
      if (withText.textStream === undefined) return null;
      const reader = withText.textStream().getReader();
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text;
        text += value;
      }
    });
    if (read === null) return;
    expect(openAiText(read)).toContain('[redacted:github-pat]');
    expect(openAiText(read)).not.toContain(token.slice(4, 14));
  });

  it('an AbortSignal abort of a guarded fetch stops the upstream', async () => {
    const result = await page.evaluate(async () => {
      const controller = new AbortController();
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'secret' }] }),
        signal: controller.signal,
      });
      const id = response.headers.get('x-mock-request-id');
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      for (let i = 0; i < 1000; i++) {
        try {
          if ((await reader.read()).done) return { id, error: 'none (ended)' };
        } catch (error) {
          return { id, error: (error as Error).name };
        }
      }
      return { id, error: 'none' };
    });
    expect(result.error).toBe('AbortError');
    await expect.poll(() => chat.sent(result.id ?? '')?.closedEarly, { timeout: 5_000 }).toBe(true);
    expect(chat.sent(result.id ?? '')?.finished).toBe(false);
  });

  it('abort() of a guarded XHR stops the upstream and fires the native abort events', async () => {
    const result = await page.evaluate(
      () =>
        new Promise<{ id: string | null; events: string[]; readyState: number }>((resolve) => {
          const xhr = new XMLHttpRequest();
          const events: string[] = [];
          let id: string | null = null;
          let aborted = false;
          xhr.onprogress = () => {
            if (aborted) return;
            aborted = true;
            id = xhr.getResponseHeader('x-mock-request-id');
            xhr.abort();
            // abort() fired its events synchronously; afterwards the request is UNSENT.
            resolve({ id, events, readyState: xhr.readyState });
          };
          for (const type of ['readystatechange', 'abort', 'loadend', 'load', 'error']) {
            xhr.addEventListener(type, () => events.push(`${type}:${xhr.readyState}`));
          }
          xhr.open('POST', '/v1/chat/completions');
          xhr.send(
            JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'secret' }] }),
          );
        }),
    );
    expect(result.events.slice(-3)).toEqual(['readystatechange:4', 'abort:4', 'loadend:4']);
    expect(result.events).not.toContain('load:4');
    expect(result.readyState).toBe(0);
    await expect.poll(() => chat.sent(result.id ?? '')?.closedEarly, { timeout: 5_000 }).toBe(true);
  });

  it('leaves an unrelated XHR untouched', async () => {
    const result = await page.evaluate(
      () =>
        new Promise<{ text: string; length: string | null; type: string | null }>((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.onload = () =>
            resolve({
              text: xhr.responseText,
              length: xhr.getResponseHeader('content-length'),
              type: xhr.getResponseHeader('content-type'),
            });
          xhr.open('GET', '/api/status');
          xhr.send();
        }),
    );
    expect(JSON.parse(result.text)).toMatchObject({ service: 'mock-chat', ok: true });
    expect(Number(result.length)).toBe(new TextEncoder().encode(result.text).byteLength);
  });
});
