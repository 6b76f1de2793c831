/**
 * The guard as the extension runs it: the MAIN world's remote guards
 * (src/page/remote-guard.ts) talking to the ISOLATED world's guard host
 * (src/content/guard-host.ts) over a loopback that clones every message, as the
 * private port does. The page side only moves text; the host guards it, waits
 * for the config, reports every stream's end once, and fails closed.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGuardHost, MAX_OPEN_STREAMS } from '../../../src/content/guard-host.ts';
import { createGuardPipelines } from '../../../src/content/guard-pipelines.ts';
import { createGuardReporter } from '../../../src/content/guard-reporter.ts';
import type { StreamGuardSetup } from '../../../src/content/page-guard-config.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { adapterById } from '../../../src/core/wire/adapter-registry.ts';
import { recognisers, recogniseResponse } from '../../../src/core/wire/wire-recognisers.ts';
import type { WireProbe } from '../../../src/core/wire/wire-event.ts';
import {
  bytePieces,
  createRemoteGuards,
  MAX_CHUNK_BYTES,
  type RemoteGuards,
} from '../../../src/page/remote-guard.ts';
import type { GuardReport } from '../../../src/protocol/guard-reports.ts';
import type { BridgeToPage, PageToBridge } from '../../../src/protocol/page-channel.ts';
import { fakeGithubToken, scriptedAnswer } from '../../mock-chat/scripted-answers.ts';
import { openWebUiSocketMessages, textOfSocketMessages } from '../../mock-chat/socket-answers.ts';
import { openAiChatSse } from '../../mock-chat/wire-answers.ts';
import { cut, cutsArbitrary, PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const token = fakeGithubToken();
const URL_CHAT = 'https://chat.example/v1/chat/completions';
const probeOf = (head: string): WireProbe => ({
  url: URL_CHAT,
  method: 'POST',
  contentType: 'text/event-stream',
  head,
});

let setup: StreamGuardSetup;
beforeAll(() => {
  // Compiling the core pack once takes seconds on a loaded machine: not a test's time.
  setup = {
    pack: getCorePack(),
    guard: { attachMatchedText: true },
    labels: { name: 'l', version: '1', minProse: 8, rules: getCorePack() },
  };
}, 60_000);

interface Loop {
  remote: RemoteGuards;
  reports: GuardReport[];
  /** Streams reported failed before their guard existed. */
  failures: string[];
  toHost: PageToBridge[];
  toPage: BridgeToPage[];
  host: ReturnType<typeof createGuardHost>;
  /** Lets the config arrive (for `waiting` loops). */
  configure(): void;
}

function loop(
  options: { connected?: boolean; waiting?: boolean; ready?: () => Promise<StreamGuardSetup> } = {},
): Loop {
  const reports: GuardReport[] = [];
  const failures: string[] = [];
  const toHost: PageToBridge[] = [];
  const toPage: BridgeToPage[] = [];
  let n = 0;
  let configure = () => undefined as void;
  const configured = new Promise<StreamGuardSetup>((resolve) => {
    configure = () => resolve(setup);
  });
  if (!options.waiting) configure();
  const host = createGuardHost({
    pipelines: createGuardPipelines(
      createGuardReporter(
        (m) => reports.push(m),
        () => `s${++n}`,
      ),
    ),
    ready: options.ready ?? (() => configured),
    adapterById,
    socketRecognisers: [recognisers.openWebUiSocket],
    reportFailure: (format) => failures.push(format),
    post: (message) => {
      const copy = structuredClone(message);
      toPage.push(copy);
      queueMicrotask(() => remote.receive(copy));
    },
  });
  const remote = createRemoteGuards({
    send: (message) => {
      if (options.connected === false) return false;
      const copy = structuredClone(message);
      toHost.push(copy);
      queueMicrotask(() => host.handle(copy));
      return true;
    },
    newId: () => `r${++n}`,
  });
  return { remote, reports, failures, toHost, toPage, host, configure };
}

/** `chunks` through the remote wire guard of the response they open; the page's text. */
async function throughWire(l: Loop, chunks: string[]): Promise<string> {
  const whole = chunks.join('');
  const probe = probeOf(whole.slice(0, 1024));
  const recogniser = recogniseResponse(probe);
  if (recogniser === undefined) throw new Error('not recognised');
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
  return new Response(body.pipeThrough(l.remote.wire(recogniser, probe))).text();
}

const secretSse = () => openAiChatSse(scriptedAnswer('show me the secret'));

describe('remote guard + guard host', () => {
  it('guards an answer: the page never gets the secret, the stream is reported once', async () => {
    const l = loop();
    const out = await throughWire(l, [secretSse()]);
    expect(out).toContain('[redacted:github-pat]');
    expect(out).not.toContain(token.slice(4, 14));
    expect(l.toHost.some((m) => m.type === 'guard-chunk')).toBe(true);
    expect(l.toPage.at(-1)?.type).toBe('guard-done');
    const ends = l.reports.filter((m) => m.type === 'stream-end');
    expect(ends).toMatchObject([{ type: 'stream-end', outcome: 'complete' }]);
    const events = l.reports.find((m) => m.type === 'guard-events');
    expect(events?.type === 'guard-events' && events.events[0]).toMatchObject({
      rule: 'github-pat',
      matched: token,
    });
    expect(l.host.open).toBe(0);
  });

  it('for any split of the network body, the page gets what the whole body gives', async () => {
    const sse = secretSse();
    const whole = await throughWire(loop(), [sse]);
    await fc.assert(
      fc.asyncProperty(cutsArbitrary, async (cuts) => {
        expect(await throughWire(loop(), cut(sse, cuts))).toBe(whole);
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 300) },
    );
  });

  it('a long network chunk is guarded in pieces but reaches the page as one chunk', async () => {
    const l = loop();
    const delta = (text: string) =>
      `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${text}"}}]}\n\n`;
    const long =
      Array.from({ length: 2_000 }, (_, i) => delta(`word ${String(i)} `)).join('') +
      'data: [DONE]\n\n';
    expect(long.length).toBeGreaterThan(4 * MAX_CHUNK_BYTES);
    const probe = probeOf(long.slice(0, 1024));
    const guard = l.remote.wire(recogniseResponse(probe)!, probe);
    const writer = guard.writable.getWriter();
    void writer.write(new TextEncoder().encode(long));
    void writer.close();
    const chunks: Uint8Array[] = [];
    const reader = guard.readable.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(l.toHost.filter((m) => m.type === 'guard-chunk').length).toBeGreaterThan(4);
    // One for the network chunk, at most one more for what the end released.
    expect(chunks.length).toBeLessThanOrEqual(2);
    expect(new TextDecoder().decode(Buffer.concat(chunks))).toBe(await throughWire(loop(), [long]));
  });

  it('a stream that starts before the config waits for it: nothing reaches the page meanwhile', async () => {
    const l = loop({ waiting: true });
    const page = throughWire(l, cut(secretSse(), [0.2, 0.5, 0.8]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(l.toPage).toEqual([]);
    l.configure();
    const out = await page;
    expect(out).toContain('[redacted:github-pat]');
    expect(out).not.toContain(token.slice(4, 14));
  });

  it('fails closed when no config can come: the page reader rejects, nothing leaks', async () => {
    const l = loop({ ready: () => Promise.reject(new Error('no config')) });
    await expect(throughWire(l, [secretSse()])).rejects.toThrow(/guard failed/);
    expect(l.toPage.filter((m) => m.type === 'guard-output')).toEqual([]);
    // Reported under the format's name, as the audit log names formats, so the person
    // gets the failure notice.
    expect(l.failures).toEqual(['openai-chat']);
  });

  it('fails closed without the channel (the handshake failed)', async () => {
    const l = loop({ connected: false });
    await expect(throughWire(l, [secretSse()])).rejects.toThrow(/guard failed/);
  });

  it('refuses a recogniser that does not claim the probe, or one it does not know', async () => {
    const l = loop();
    const wrong = l.remote.wire(recognisers.anthropicMessages, probeOf('data: {}'));
    const unknown = l.remote.wire({ ...recognisers.openAiChatStream, id: 'nope' }, probeOf(''));
    for (const guard of [wrong, unknown]) {
      await expect(new Response(guard.readable).text()).rejects.toThrow(/guard failed/);
    }
    expect(l.toPage.map((m) => m.type)).toEqual(['guard-failed', 'guard-failed']);
    expect(l.failures).toEqual(['anthropic', 'nope']);
  });

  it('the page cancelling its body cancels the stream: reported aborted, nothing more sent', async () => {
    const l = loop();
    const probe = probeOf('data: {"object":"chat.completion.chunk"}');
    const guard = l.remote.wire(recognisers.openAiChatStream, probe);
    const writer = guard.writable.getWriter();
    void writer.write(new TextEncoder().encode(secretSse().slice(0, 200))).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await guard.readable.cancel('page went away');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(l.toHost.at(-1)).toMatchObject({ type: 'guard-cancel' });
    expect(l.reports.filter((m) => m.type === 'stream-end')).toMatchObject([
      { outcome: 'aborted' },
    ]);
    expect(l.host.open).toBe(0);
    // The input side errored too, so a pipe from the network would cancel it.
    await expect(writer.ready).rejects.toBe('page went away');
  });

  it('guards a socket message by message, then releases the rest at close', async () => {
    const l = loop();
    const delivered: string[] = [];
    let done = false;
    const messages = openWebUiSocketMessages(scriptedAnswer('show me the secret'));
    const probe = { url: 'ws://127.0.0.1/ws/socket.io/', method: 'GET', contentType: '', head: '' };
    const socket = l.remote.socket(recognisers.openWebUiSocket, probe, {
      deliver: (m) => delivered.push(...m),
      done: () => {
        done = true;
      },
      fail: () => expect.fail('the guard failed'),
    });
    for (const message of messages) socket.push(message);
    socket.end();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(true);
    expect(delivered).toHaveLength(messages.length);
    expect(textOfSocketMessages(delivered)).toContain('[redacted:github-pat]');
    expect(delivered.join('')).not.toContain(token.slice(4, 14));
  });

  it('refuses more open streams than MAX_OPEN_STREAMS', () => {
    const posts: BridgeToPage[] = [];
    const host = createGuardHost({
      pipelines: createGuardPipelines(
        createGuardReporter(
          () => undefined,
          () => 'x',
        ),
      ),
      ready: () => new Promise(() => undefined),
      adapterById,
      socketRecognisers: [recognisers.openWebUiSocket],
      reportFailure: () => undefined,
      post: (m) => posts.push(m),
    });
    const probe = probeOf('');
    for (let i = 0; i <= MAX_OPEN_STREAMS; i++) {
      host.handle({
        v: 1,
        type: 'guard-open',
        streamId: `s${i}`,
        kind: 'plain-text',
        recogniser: '',
        probe,
      });
    }
    expect(host.open).toBe(MAX_OPEN_STREAMS);
    expect(posts).toEqual([{ v: 1, type: 'guard-failed', streamId: `s${MAX_OPEN_STREAMS}` }]);
  });
});

describe('bytePieces', () => {
  it('for any bytes and size: pieces join to the bytes, none too long, each its own buffer', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat({ max: 8 }),
        fc.integer({ min: 1, max: 64 }),
        (all, offset, max) => {
          const bytes = all.subarray(Math.min(offset, all.length));
          const pieces = bytePieces(bytes, max);
          expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));
          for (const piece of pieces) {
            expect(piece.length).toBeLessThanOrEqual(max);
            // A posted view carries its whole buffer: each piece spans its own.
            expect(piece.byteOffset).toBe(0);
            expect(piece.buffer.byteLength).toBe(piece.length);
          }
        },
      ),
      { numRuns: Math.min(PROPERTY_RUNS, 500) },
    );
  });
});

describe('bytes handed back', () => {
  it('an answer the guard did not change reaches the page as the very network bytes', async () => {
    const l = loop();
    const delta = (text: string) =>
      `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${text}"}}]}\n\n`;
    const sse = `${delta('plain words, caf\u00e9 ')}${delta('and \u{1F600}, nothing to redact')}data: [DONE]\n\n`;
    // Bytes that are not UTF-8 (each decoded as U+FFFD): re-encoding the text would give
    // the page three other bytes for each; handed back, the page gets the network's own.
    const bytes = new TextEncoder().encode(
      sse.replace('plain', 'pl\u0000in').replace('thing', 'th\u0000ng'),
    );
    bytes[bytes.indexOf(0)] = 0xff;
    bytes[bytes.indexOf(0)] = 0xfe;
    const probe = probeOf(sse.slice(0, 1024));
    const guard = l.remote.wire(recogniseResponse(probe)!, probe);
    const writer = guard.writable.getWriter();
    // The first event whole; the second cut inside its emoji's four bytes (the guard holds
    // the incomplete event, then releases it whole with the end of the body).
    const second = Buffer.from(bytes).indexOf('data:', 1);
    const emoji = bytes.indexOf(0xf0);
    void writer.write(bytes.slice(0, second));
    void writer.write(bytes.slice(second, emoji + 2));
    void writer.write(bytes.slice(emoji + 2));
    void writer.close();
    const out = new Uint8Array(await new Response(guard.readable).arrayBuffer());
    expect(out).toEqual(bytes);
  });
});
