/**
 * First-party chat sites send only the new message; the history stays on the
 * server (WIRE-FORMATS.md §0.4): ChatGPT `messages[].content.parts[]` (and the
 * `partial_query` pre-warm, §1.2, which would otherwise leak the original),
 * Claude.ai `prompt` plus `attachments[].extracted_content` (§2.2), DeepSeek
 * `prompt` (§4.2), LibreChat `text` (§6.2).
 */
import { requestRecognisers } from './request-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import type { RequestAdapter, RequestText } from './request-text.ts';

function parseObject(body: string): Record<string, unknown> {
  const json: unknown = JSON.parse(body);
  if (!isRecord(json)) throw new SyntaxError('request body is not a JSON object');
  return json;
}

function prompt(json: Record<string, unknown>, key: string): RequestText[] {
  const text = json[key];
  return typeof text === 'string'
    ? [{ path: [key], text, part: 'new', role: 'user', message: 0 }]
    : [];
}

function stringParts(content: unknown, at: JsonPath, message: number): RequestText[] {
  if (!isRecord(content) || !Array.isArray(content.parts)) return [];
  return content.parts.flatMap((p: unknown, j: number) =>
    typeof p === 'string'
      ? [
          {
            path: [...at, 'parts', j],
            text: p,
            part: 'new' as const,
            role: 'user' as const,
            message,
          },
        ]
      : [],
  );
}

const rewriteJson = (body: string, edits: readonly { path: JsonPath; value: string }[]) =>
  replaceStrings(body, edits);

export const chatgptWebRequest: RequestAdapter = {
  ...requestRecognisers.chatgptWebRequest,
  locate: (body) => {
    const json = parseObject(body);
    const messages = Array.isArray(json.messages) ? json.messages : [];
    const texts = messages.flatMap((m: unknown, i: number) =>
      isRecord(m) ? stringParts(m.content, ['messages', i, 'content'], i) : [],
    );
    const partial = isRecord(json.partial_query)
      ? stringParts(json.partial_query.content, ['partial_query', 'content'], 0)
      : [];
    return [...texts, ...partial];
  },
  rewrite: rewriteJson,
};

export const claudeWebRequest: RequestAdapter = {
  ...requestRecognisers.claudeWebRequest,
  locate: (body) => {
    const json = parseObject(body);
    const attachments = Array.isArray(json.attachments) ? json.attachments : [];
    return [
      ...prompt(json, 'prompt'),
      ...attachments.flatMap((a: unknown, i: number) =>
        isRecord(a) && typeof a.extracted_content === 'string'
          ? [
              {
                path: ['attachments', i, 'extracted_content'],
                text: a.extracted_content,
                part: 'attachment' as const,
                role: 'user' as const,
                message: 0,
              },
            ]
          : [],
      ),
    ];
  },
  rewrite: rewriteJson,
};

export const deepseekWebRequest: RequestAdapter = {
  ...requestRecognisers.deepseekWebRequest,
  locate: (body) => prompt(parseObject(body), 'prompt'),
  rewrite: rewriteJson,
};

export const libreChatRequest: RequestAdapter = {
  ...requestRecognisers.libreChatRequest,
  locate: (body) => prompt(parseObject(body), 'text'),
  rewrite: rewriteJson,
};
