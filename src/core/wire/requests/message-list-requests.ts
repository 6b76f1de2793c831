/**
 * Request bodies that carry a message list (WIRE-FORMATS.md §0.4, §7): the
 * OpenAI Chat Completions shape (also Open WebUI, NextChat, LobeChat), the
 * Responses API `input`, Anthropic Messages (`system` + `messages`), Gemini
 * API `contents`, and Ollama. The last user message is the new one; the rest is
 * history. Content is a string or a list of typed parts whose `text` is guarded.
 */
import { requestRecognisers } from './request-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import type { RequestAdapter, RequestRole, RequestText } from './request-text.ts';

const TEXT_PART_TYPES = new Set(['text', 'input_text', 'output_text']);

function roleOf(value: unknown): RequestRole {
  if (value === 'assistant' || value === 'model') return 'assistant';
  if (value === 'system' || value === 'developer') return 'system';
  if (value === 'tool' || value === 'function') return 'tool';
  return 'user';
}

/** Strings of a `content` value: a string, or parts with a `text` string. */
function contentTexts(content: unknown, at: JsonPath): { path: JsonPath; text: string }[] {
  if (typeof content === 'string') return [{ path: at, text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown, j: number) =>
    isRecord(part) &&
    typeof part.text === 'string' &&
    (part.type === undefined || TEXT_PART_TYPES.has(String(part.type)))
      ? [{ path: [...at, j, 'text'], text: part.text }]
      : [],
  );
}

/**
 * AI SDK message parts (WIRE-FORMATS-2.md §1.2): `parts[type=text].text`. SDK
 * 5+ messages have only `parts`; SDK 4.2+ repeat `content` in them. Read
 * wherever a `content` list is read, so an AI SDK body is covered on any route
 * that claims it (Ollama's `/api/chat` is also the SDK's default path).
 */
function partTexts(parts: unknown, at: JsonPath): { path: JsonPath; text: string }[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part: unknown, j: number) =>
    isRecord(part) && part.type === 'text' && typeof part.text === 'string'
      ? [{ path: [...at, j, 'text'], text: part.text }]
      : [],
  );
}

/** Texts of `list[i][contentKey]` (and AI SDK `parts`), the last user message marked new. */
function messageTexts(list: unknown, listPath: JsonPath, contentKey: string): RequestText[] {
  if (!Array.isArray(list)) return [];
  const lastUser = list.reduce<number>(
    (last, m: unknown, i) => (isRecord(m) && roleOf(m.role) === 'user' ? i : last),
    -1,
  );
  return list.flatMap((m: unknown, i: number) => {
    if (!isRecord(m)) return [];
    const role = roleOf(m.role);
    const part = role === 'system' ? 'system' : i === lastUser ? 'new' : 'history';
    const sdkParts = contentKey === 'content' ? partTexts(m.parts, [...listPath, i, 'parts']) : [];
    return [...contentTexts(m[contentKey], [...listPath, i, contentKey]), ...sdkParts].map((t) => ({
      ...t,
      part,
      role,
      message: i,
    }));
  });
}

/** An AI SDK body's `messages` (requests/ai-sdk-request.ts). */
export function aiSdkMessageTexts(list: unknown): RequestText[] {
  return messageTexts(list, ['messages'], 'content');
}

function parseObject(body: string): Record<string, unknown> {
  const json: unknown = JSON.parse(body);
  if (!isRecord(json)) throw new SyntaxError('request body is not a JSON object');
  return json;
}

function systemTexts(value: unknown, at: JsonPath): RequestText[] {
  return contentTexts(value, at).map((t) => ({
    ...t,
    part: 'system',
    role: 'system',
    message: -1,
  }));
}

const rewriteJson = (body: string, edits: readonly { path: JsonPath; value: string }[]) =>
  replaceStrings(body, edits);

/** OpenAI Chat Completions and the UIs that send its shape. */
export const openAiChatRequest: RequestAdapter = {
  ...requestRecognisers.openAiChatRequest,
  locate: (body) => messageTexts(parseObject(body).messages, ['messages'], 'content'),
  rewrite: rewriteJson,
};

export const anthropicRequest: RequestAdapter = {
  ...requestRecognisers.anthropicRequest,
  locate: (body) => {
    const json = parseObject(body);
    return [
      ...systemTexts(json.system, ['system']),
      ...messageTexts(json.messages, ['messages'], 'content'),
    ];
  },
  rewrite: rewriteJson,
};

export const openAiResponsesRequest: RequestAdapter = {
  ...requestRecognisers.openAiResponsesRequest,
  locate: (body) => {
    const json = parseObject(body);
    const system = systemTexts(json.instructions, ['instructions']);
    if (typeof json.input === 'string') {
      return [
        ...system,
        { path: ['input'], text: json.input, part: 'new', role: 'user', message: 0 },
      ];
    }
    return [...system, ...messageTexts(json.input, ['input'], 'content')];
  },
  rewrite: rewriteJson,
};

export const geminiApiRequest: RequestAdapter = {
  ...requestRecognisers.geminiApiRequest,
  locate: (body) => {
    const json = parseObject(body);
    const system = isRecord(json.systemInstruction)
      ? systemTexts(json.systemInstruction.parts, ['systemInstruction', 'parts'])
      : [];
    return [...system, ...messageTexts(json.contents, ['contents'], 'parts')];
  },
  rewrite: rewriteJson,
};

export const ollamaRequest: RequestAdapter = {
  ...requestRecognisers.ollamaRequest,
  locate: (body) => {
    const json = parseObject(body);
    if (typeof json.prompt === 'string') {
      return [
        ...systemTexts(json.system, ['system']),
        { path: ['prompt'], text: json.prompt, part: 'new', role: 'user', message: 0 },
      ];
    }
    return messageTexts(json.messages, ['messages'], 'content');
  },
  rewrite: rewriteJson,
};
