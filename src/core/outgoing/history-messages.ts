/**
 * The message list of request bodies that send the history (WIRE-FORMATS.md
 * §0.4, §6, §7): the OpenAI Chat Completions shape (also Open WebUI, NextChat,
 * LobeChat and Ollama's `/api/chat`), Anthropic Messages, and big-AGI's
 * `aix.chatGenerateContent` input (`chatSequence` of `parts`; §6.5,
 * wire/requests/big-agi-request.ts). Read-only: what
 * each message is for history projection — its role, its text strings and
 * where they sit, and whether it carries what must never be dropped (tool
 * calls, images, tool results).
 */
import { isRecord } from '../wire/sse-json-render.ts';
import type { JsonPath } from '../wire/json-string-span.ts';
import { bigAgiSequencePath } from '../wire/requests/big-agi-request.ts';

export type HistoryShape = 'openai-chat' | 'anthropic' | 'big-agi';

/** Clients whose bodies projection reads (`csg outgoing --format`), and the shape each sends. */
export const HISTORY_FORMATS = {
  'openai-chat': 'openai-chat',
  'open-webui': 'openai-chat',
  nextchat: 'openai-chat',
  lobechat: 'openai-chat',
  ollama: 'openai-chat',
  anthropic: 'anthropic',
  'big-agi': 'big-agi',
} as const satisfies Record<string, HistoryShape>;

export type HistoryFormat = keyof typeof HISTORY_FORMATS;

export function historyShapeOf(format: string): HistoryShape | undefined {
  return Object.hasOwn(HISTORY_FORMATS, format)
    ? HISTORY_FORMATS[format as HistoryFormat]
    : undefined;
}

/**
 * The history format of a request the request registry recognised (its
 * adapter's `name`), for the page's send hook; undefined when projection does
 * not read that body (first-party sites keep the history on their server;
 * Responses and Gemini API bodies are not projected yet).
 */
export function historyFormatOfRequest(adapterName: string): HistoryFormat | undefined {
  return adapterName === 'openai-chat' ||
    adapterName === 'anthropic' ||
    adapterName === 'ollama' ||
    adapterName === 'big-agi'
    ? adapterName
    : undefined;
}

/** Where the message list of a parsed body of `shape` is; undefined when it has none. */
export function historyListPath(json: unknown, shape: HistoryShape): JsonPath | undefined {
  if (shape === 'big-agi') return bigAgiSequencePath(json);
  return isRecord(json) && Array.isArray(json.messages) ? ['messages'] : undefined;
}

/**
 * The history format of a recognised request whose body carries a message list
 * (so projection applies); undefined otherwise — e.g. Ollama's `{prompt}` body.
 * Throws a SyntaxError on a body that is not JSON.
 */
export function historyFormatOfBody(adapterName: string, body: string): HistoryFormat | undefined {
  const format = historyFormatOfRequest(adapterName);
  if (format === undefined) return undefined;
  return historyListPath(JSON.parse(body) as unknown, HISTORY_FORMATS[format]) === undefined
    ? undefined
    : format;
}

export type HistoryRole = 'user' | 'assistant' | 'system' | 'tool';

export interface HistoryText {
  /** Path of the string in the body. */
  path: JsonPath;
  /** Index in the content array, or null for string content. */
  part: number | null;
  text: string;
}

export interface HistoryMessage {
  index: number;
  role: HistoryRole;
  texts: HistoryText[];
  /** Path of the message's content (`content`, or big-AGI's `parts`). */
  contentPath: JsonPath;
  /** The JSON that stands for "no content" in this shape (`""`, or `[]` for parts lists). */
  emptyContent: string;
  /** `content` is an array of parts (else a string or absent). */
  partsContent: boolean;
  /** Content parts that are not text (images, tool_use, tool_result, files). */
  otherParts: number;
  /** Tool calls whose ids later tool results answer: the message must stay (seed 001 §7.1.2). */
  carriesToolCalls: boolean;
}

const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);

function roleOf(value: unknown): HistoryRole {
  if (value === 'assistant' || value === 'model') return 'assistant';
  if (value === 'system' || value === 'developer') return 'system';
  if (value === 'tool' || value === 'function') return 'tool';
  return 'user';
}

function readMessage(
  m: unknown,
  index: number,
  shape: HistoryShape,
  listPath: JsonPath,
): HistoryMessage {
  if (shape === 'big-agi') return readPartsMessage(m, index, listPath);
  const message = isRecord(m) ? m : {};
  let role = roleOf(message.role);
  const content = message.content;
  const at: JsonPath = [...listPath, index, 'content'];
  const texts: HistoryText[] = [];
  let otherParts = 0;
  let toolUse = false;
  let toolResults = 0;
  if (typeof content === 'string') texts.push({ path: at, part: null, text: content });
  if (Array.isArray(content)) {
    content.forEach((p: unknown, j) => {
      const isText =
        isRecord(p) &&
        typeof p.text === 'string' &&
        (p.type === undefined || TEXT_TYPES.has(String(p.type)));
      if (isText) texts.push({ path: [...at, j, 'text'], part: j, text: p.text as string });
      else otherParts++;
      if (isRecord(p) && p.type === 'tool_use') toolUse = true;
      if (isRecord(p) && p.type === 'tool_result') toolResults++;
    });
  }
  // Anthropic sends tool results as user messages of tool_result blocks: not a user turn.
  if (shape === 'anthropic' && role === 'user' && toolResults > 0 && texts.length === 0) {
    role = 'tool';
  }
  const calls = message.tool_calls;
  const carriesToolCalls =
    toolUse || (Array.isArray(calls) && calls.length > 0) || isRecord(message.function_call);
  return {
    index,
    role,
    texts,
    contentPath: at,
    emptyContent: '""',
    partsContent: Array.isArray(content),
    otherParts,
    carriesToolCalls,
  };
}

/**
 * A big-AGI `chatSequence` message: `{role: 'user'|'model'|'tool', parts}`. Only
 * `text` parts are its text; documents, images, reasoning (`ma`, signed by the
 * provider), tool invocations and responses are other parts, kept as they are.
 */
function readPartsMessage(m: unknown, index: number, listPath: JsonPath): HistoryMessage {
  const message = isRecord(m) ? m : {};
  const parts = message.parts;
  const at: JsonPath = [...listPath, index, 'parts'];
  const texts: HistoryText[] = [];
  let otherParts = 0;
  let toolUse = false;
  if (Array.isArray(parts)) {
    parts.forEach((p: unknown, j) => {
      if (isRecord(p) && p.pt === 'text' && typeof p.text === 'string') {
        texts.push({ path: [...at, j, 'text'], part: j, text: p.text });
      } else otherParts++;
      if (isRecord(p) && p.pt === 'tool_invocation') toolUse = true;
    });
  }
  return {
    index,
    role: roleOf(message.role),
    texts,
    contentPath: at,
    emptyContent: '[]',
    partsContent: true,
    otherParts,
    carriesToolCalls: toolUse,
  };
}

/** The messages of a body; throws a SyntaxError when it has no message list. */
export function readHistory(json: unknown, shape: HistoryShape): HistoryMessage[] {
  const listPath = historyListPath(json, shape);
  const list = listPath === undefined ? undefined : listAt(json, listPath);
  if (listPath === undefined || list === undefined) {
    throw new SyntaxError(
      shape === 'big-agi'
        ? 'request body has no "chatSequence" list'
        : 'request body has no "messages" list',
    );
  }
  return list.map((m: unknown, i) => readMessage(m, i, shape, listPath));
}

function listAt(json: unknown, path: JsonPath): unknown[] | undefined {
  let value = json;
  for (const key of path) {
    if (!isRecord(value) && !Array.isArray(value)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return Array.isArray(value) ? value : undefined;
}

/** The text a reference-only mark digests: the content string, or the text parts joined by "\n". */
export function messageText(message: HistoryMessage): string {
  return message.texts.map((t) => t.text).join('\n');
}
