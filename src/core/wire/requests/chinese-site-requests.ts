/**
 * What the person sends on Doubao, Yuanbao and Qianwen (WIRE-FORMATS-2.md §3.3,
 * §3.4, §3.2): each sends only the new message, and two of them send its text
 * twice, so both copies are located (and rewritten alike):
 * - Doubao: `messages[i].content_block[j].content.text_block.text`. `a_bogus`
 *   in the URL signs the request; its scope is unknown (§5) and one 2026 relay
 *   sent without it, so the text is rewritten like any other site's;
 * - Yuanbao: `prompt` and `displayPrompt`;
 * - Qianwen: `messages[i].content` and `messages[i].meta_data.ori_query`.
 * Kimi's send is a Connect envelope (binary, §2.2) and is not read here.
 */
import { type JsonPath, replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter, RequestText } from './request-text.ts';

function parseObject(body: string): Record<string, unknown> {
  const json: unknown = JSON.parse(body);
  if (!isRecord(json)) throw new SyntaxError('request body is not a JSON object');
  return json;
}

/** The string at `path` under `root` as the new user text of message `message`, if it is one. */
function userText(root: unknown, path: JsonPath, message: number): RequestText[] {
  let value = root;
  for (const key of path) {
    if (typeof key === 'number') value = Array.isArray(value) ? value[key] : undefined;
    else value = isRecord(value) ? value[key] : undefined;
  }
  return typeof value === 'string'
    ? [{ path, text: value, part: 'new', role: 'user', message }]
    : [];
}

/** The array at `key` of the body, or none. */
function listOf(json: Record<string, unknown>, key: string): unknown[] {
  const list = json[key];
  return Array.isArray(list) ? list : [];
}

export const doubaoRequest: RequestAdapter = {
  ...requestRecognisers.doubaoRequest,
  locate: (body) => {
    const json = parseObject(body);
    return listOf(json, 'messages').flatMap((message: unknown, i) => {
      const blocks = isRecord(message) ? message.content_block : undefined;
      if (!Array.isArray(blocks)) return [];
      return blocks.flatMap((_block: unknown, j) =>
        userText(json, ['messages', i, 'content_block', j, 'content', 'text_block', 'text'], i),
      );
    });
  },
  rewrite: replaceStrings,
};

export const yuanbaoRequest: RequestAdapter = {
  ...requestRecognisers.yuanbaoRequest,
  locate: (body) => {
    const json = parseObject(body);
    return [...userText(json, ['prompt'], 0), ...userText(json, ['displayPrompt'], 0)];
  },
  rewrite: replaceStrings,
};

export const qianwenRequest: RequestAdapter = {
  ...requestRecognisers.qianwenRequest,
  locate: (body) => {
    const json = parseObject(body);
    return listOf(json, 'messages').flatMap((_message: unknown, i) => [
      ...userText(json, ['messages', i, 'content'], i),
      ...userText(json, ['messages', i, 'meta_data', 'ori_query'], i),
    ]);
  },
  rewrite: replaceStrings,
};
