/**
 * Mock answer endpoints of ChatGLM and Perplexity (issue 20), each streaming the
 * scripted token split across its events, in small network chunks:
 *
 * - `POST /chatglm/backend-api/assistant/stream`: ChatGLM SSE (WIRE-FORMATS-2.md
 *   §3.5): every event re-sends the whole part (cumulative per part), a think
 *   item first, then a text item that grows; `status: "finish"` last.
 * - `POST /rest/sse/perplexity_ask`: Perplexity SSE (WIRE-FORMATS.md §5.5): an
 *   `ask_text` block's `markdown_block` diff, a `replace` at `""` with chunks then
 *   `add /chunks/n` patches; `status: "COMPLETED"`, then `event: end_of_stream`.
 *
 * The e2e cases (wire-format-cases.ts) read them back as those sites' clients do.
 * Loopback only, like the rest of the mock chat.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fakeGithubToken } from './scripted-answers.ts';

const sse = (value: unknown, event?: string) =>
  `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(value)}\n\n`;

/** ChatGLM: the part re-sent whole as its text grows. */
export function chatglmAnswerBody(): string {
  const token = fakeGithubToken();
  const text = `Here it is: ${token} (rotate it soon).`;
  const think = { type: 'think', think: 'The user wants the deploy token.' };
  const event = (status: string, partStatus: string, upTo: number) =>
    sse({
      conversation_id: 'conv-1',
      status,
      parts: [
        {
          logic_id: 'part-1',
          status: partStatus,
          content: [think, { type: 'text', text: text.slice(0, upTo) }],
          meta_data: {},
        },
      ],
    });
  return [
    event('init', 'init', 14),
    event('init', 'init', 30),
    event('init', 'init', 45),
    event('init', 'finish', text.length),
    event('finish', 'finish', text.length),
  ].join('');
}

/** Perplexity: the answer's chunks as diff-block patches. */
export function perplexityAnswerBody(): string {
  const token = fakeGithubToken();
  const diff = (patches: unknown[]) =>
    sse(
      {
        backend_uuid: 'b-1',
        status: 'PENDING',
        blocks: [{ intended_usage: 'ask_text', diff_block: { field: 'markdown_block', patches } }],
      },
      'message',
    );
  return [
    diff([{ op: 'replace', path: '', value: { chunks: ['Here it is: ', token.slice(0, 9)] } }]),
    diff([{ op: 'add', path: '/chunks/2', value: token.slice(9, 25) }]),
    diff([{ op: 'add', path: '/chunks/3', value: `${token.slice(25)} (rotate it soon).` }]),
    sse({ backend_uuid: 'b-1', status: 'COMPLETED', thread_url_slug: 'token-1' }, 'message'),
    'event: end_of_stream\ndata: {}\n\n',
  ].join('');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ChatglmPerplexityRoutes {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

export function createChatglmPerplexityRoutes(options: {
  chunkDelayMs: number;
}): ChatglmPerplexityRoutes {
  const stream = async (res: ServerResponse, body: string) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const bytes = Buffer.from(body, 'utf8');
    for (let at = 0, step = 0; at < bytes.length; step++) {
      if (res.destroyed) return;
      const size = 1 + ((step * 11 + 7) % 80);
      res.write(bytes.subarray(at, at + size));
      at += size;
      await sleep(options.chunkDelayMs);
    }
    res.end();
  };
  const bodies: Record<string, () => string> = {
    'POST /chatglm/backend-api/assistant/stream': chatglmAnswerBody,
    'POST /rest/sse/perplexity_ask': perplexityAnswerBody,
  };
  return {
    handle(req, res, url) {
      const route = `${req.method} ${url.pathname}`;
      const body = Object.hasOwn(bodies, route) ? bodies[route] : undefined;
      if (body === undefined) return false;
      req.resume();
      req.on('end', () => {
        stream(res, body()).catch(() => res.destroy());
      });
      return true;
    },
  };
}
