/**
 * The message list of request bodies that send the history (WIRE-FORMATS.md
 * §0.4, §6, §7): the OpenAI Chat Completions shape (also Open WebUI, NextChat,
 * LobeChat and Ollama's `/api/chat`) and Anthropic Messages. Read-only: what
 * each message is for history projection — its role, its text strings and
 * where they sit, and whether it carries what must never be dropped (tool
 * calls, images, tool results).
 */
import { isRecord } from '../wire/sse-json-render.ts';
import type { JsonPath } from '../wire/json-string-span.ts';

export type HistoryShape = 'openai-chat' | 'anthropic';

/** Clients whose bodies projection reads (`csg outgoing --format`), and the shape each sends. */
export const HISTORY_FORMATS = {
  'openai-chat': 'openai-chat',
  'open-webui': 'openai-chat',
  nextchat: 'openai-chat',
  lobechat: 'openai-chat',
  ollama: 'openai-chat',
  anthropic: 'anthropic',
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
  return adapterName === 'openai-chat' || adapterName === 'anthropic' || adapterName === 'ollama'
    ? adapterName
    : undefined;
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

function readMessage(m: unknown, index: number, shape: HistoryShape): HistoryMessage {
  const message = isRecord(m) ? m : {};
  let role = roleOf(message.role);
  const content = message.content;
  const at: JsonPath = ['messages', index, 'content'];
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
    partsContent: Array.isArray(content),
    otherParts,
    carriesToolCalls,
  };
}

/** The messages of a body; throws a SyntaxError when it has no message list. */
export function readHistory(json: unknown, shape: HistoryShape): HistoryMessage[] {
  if (!isRecord(json) || !Array.isArray(json.messages)) {
    throw new SyntaxError('request body has no "messages" list');
  }
  return json.messages.map((m: unknown, i) => readMessage(m, i, shape));
}

/** The text a reference-only mark digests: the content string, or the text parts joined by "\n". */
export function messageText(message: HistoryMessage): string {
  return message.texts.map((t) => t.text).join('\n');
}
