/**
 * Mock answer endpoints of Kimi, Doubao and Qianwen (issue 20), each streaming
 * the scripted token split across its events, in small network chunks that
 * fall anywhere (inside Kimi's 5-byte envelope headers and inside multi-byte
 * characters too):
 *
 * - `POST /apiv2/kimi.gateway.chat.v1.ChatService/Chat`: Connect envelopes
 *   (WIRE-FORMATS-2.md §2.3): `block.text` set, then `block.text.content`
 *   appends, `message.status`, then the 0x02 end-of-stream trailer `{}`;
 * - `POST /chat/completion?aid=…`: Doubao SSE (§3.3): the token in every copy
 *   (CHUNK_DELTA, STREAM_CHUNK text blocks, tts_content), then SSE_REPLY_END;
 * - `POST /api/v2/chat?biz_id=ai_qwen`: Qianwen SSE (§3.2): cumulative
 *   `text/plain` messages, then `event: complete`;
 * - `POST /yuanbao.tencent.com/api/chat/{id}`: Yuanbao SSE (§3.4): think and
 *   text deltas, a non-JSON `data:` line, `[DONE]`. Yuanbao's recogniser
 *   matches its host, which a loopback mock cannot have, so the mock serves the
 *   route under a path that spells it.
 *
 * `GET /kimi/last-send` gives the last body Kimi's route received (base64).
 * The e2e cases (wire-format-cases.ts) read them back as those sites' clients do.
 * Loopback only, like the rest of the mock chat.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fakeGithubToken } from './scripted-answers.ts';

/** The answer every endpoint streams, in three pieces that split the token. */
function answerPieces(): string[] {
  const token = fakeGithubToken();
  return [
    `你好 😀 here it is: ${token.slice(0, 11)}`,
    token.slice(11, 27),
    `${token.slice(27)} (rotate it soon).`,
  ];
}

function envelope(flags: number, value: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  const header = Buffer.alloc(5);
  header.writeUInt8(flags, 0);
  header.writeUInt32BE(json.length, 1);
  return Buffer.concat([header, json]);
}

export function kimiAnswerBody(): Buffer {
  const [first, ...rest] = answerPieces();
  const text = (op: string, mask: string, content: string) =>
    envelope(0, { op, mask, block: { id: '1', text: { content } } });
  return Buffer.concat([
    envelope(0, {
      op: 'set',
      mask: 'message',
      message: { id: 'm-2', role: 'assistant', status: 'MESSAGE_STATUS_GENERATING' },
    }),
    text('set', 'block.text', first ?? ''),
    ...rest.map((piece) => text('append', 'block.text.content', piece)),
    envelope(0, {
      op: 'set',
      mask: 'message.status',
      // Long enough (418 bytes, 0x1a2) that its length has a byte that is not ASCII.
      message: { id: 'm-2', status: 'MESSAGE_STATUS_COMPLETED', title: '巴黎'.repeat(52) },
    }),
    envelope(2, {}),
  ]);
}

const event = (name: string, value: unknown) =>
  `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`;

export function doubaoAnswerBody(): Buffer {
  const pieces = answerPieces();
  const block = (text: string) => ({
    patch_object: 1,
    patch_type: 1,
    patch_value: {
      content_block: [{ block_type: 10000, block_id: 'b-1', content: { text_block: { text } } }],
    },
  });
  const tts = (text: string) => ({
    patch_object: 111,
    patch_type: 1,
    patch_value: { tts_content: text },
  });
  const events = pieces.flatMap((piece) => [
    event('STREAM_CHUNK', { message_id: 'm-2', patch_op: [block(piece), tts(piece)] }),
    event('CHUNK_DELTA', { text: piece }),
  ]);
  return Buffer.from(
    [
      event('SSE_ACK', { query_list: [{ question_id: 'q-1' }] }),
      ...events,
      event('SSE_REPLY_END', { end_type: 1, msg_finish_attr: { brief: pieces.join('') } }),
      event('SSE_REPLY_END', { end_type: 3 }),
    ].join(''),
    'utf8',
  );
}

export function qianwenAnswerBody(): Buffer {
  let soFar = '';
  const frames = answerPieces().map((piece) => {
    soFar += piece;
    const message = {
      mime_type: 'text/plain',
      content: soFar,
      status: 'processing',
      meta_data: {},
    };
    return `data: ${JSON.stringify({ communication: { sessionid: 's-1', reqid: 'r-1' }, data: { messages: [message] } })}\n\n`;
  });
  return Buffer.from([...frames, 'event: complete\ndata: {}\n\n'].join(''), 'utf8');
}

export function yuanbaoAnswerBody(): Buffer {
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  return Buffer.from(
    [
      data({ type: 'think', content: 'The user wants the token.' }),
      'data: [MSGINDEX:2]\n\n',
      ...answerPieces().map((msg) => data({ type: 'text', msg })),
      'data: [DONE]\n\n',
    ].join(''),
    'utf8',
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ChineseSiteRoutes {
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

interface Route {
  type: string;
  body: () => Buffer;
}

function routeOf(url: URL): Route | undefined {
  if (url.pathname === '/apiv2/kimi.gateway.chat.v1.ChatService/Chat') {
    return { type: 'application/connect+json', body: kimiAnswerBody };
  }
  if (url.pathname === '/chat/completion' && url.searchParams.has('aid')) {
    return { type: 'text/event-stream', body: doubaoAnswerBody };
  }
  if (url.pathname.startsWith('/yuanbao.tencent.com/api/chat/')) {
    return { type: 'text/event-stream', body: yuanbaoAnswerBody };
  }
  if (url.pathname === '/api/v2/chat' && url.searchParams.get('biz_id') === 'ai_qwen') {
    return { type: 'text/event-stream', body: qianwenAnswerBody };
  }
  return undefined;
}

export function createChineseSiteRoutes(options: { chunkDelayMs: number }): ChineseSiteRoutes {
  const stream = async (res: ServerResponse, route: Route) => {
    res.writeHead(200, { 'content-type': route.type });
    const bytes = route.body();
    for (let at = 0, step = 0; at < bytes.length; step++) {
      if (res.destroyed) return;
      const size = 1 + ((step * 13 + 3) % 37);
      res.write(bytes.subarray(at, at + size));
      at += size;
      await sleep(options.chunkDelayMs);
    }
    res.end();
  };
  let lastKimiSend = Buffer.alloc(0);
  return {
    handle(req, res, url) {
      if (req.method === 'GET' && url.pathname === '/kimi/last-send') {
        // The last body Kimi's route received, base64 (it is binary), for the send test.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(lastKimiSend.toString('base64'));
        return true;
      }
      const route = req.method === 'POST' ? routeOf(url) : undefined;
      if (route === undefined) return false;
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => {
        if (parts.length < 64) parts.push(part);
      });
      req.on('end', () => {
        if (route.body === kimiAnswerBody) lastKimiSend = Buffer.concat(parts);
        stream(res, route).catch(() => res.destroy());
      });
      return true;
    },
  };
}
