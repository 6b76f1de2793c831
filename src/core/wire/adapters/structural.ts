/**
 * The fallback for answers no adapter claims by URL or content type
 * (DESIGN.md §3.5, issue 18 §1): the answer to a chat-shaped request, or a
 * body whose head shows a known event shape, whatever its URL, content type,
 * padding, first events or key order.
 *
 * The body is framed by its own structure (framing/structural-framer.ts).
 * Then each frame is read for a known shape, by structure only:
 * - OpenAI Chat Completions chunks (`choices[].delta`, or legacy `choices[].text`)
 *   and answers (`choices[].message`), with or without `object`, anywhere;
 * - Anthropic Messages events (`message_start`, `content_block_*`) and answers;
 * - OpenAI Responses events (`response.*`) and answers (`object: "response"`);
 * - Gemini API chunks (`candidates`) and answers;
 * - Ollama lines (`message` or `response`, `done`, `model`).
 * The first frame in a known shape commits the stream to that format's own
 * adapter session, which reads the rest (and ends a blocked answer the way the
 * provider does). Frames before it (`{"status":"connected"}`, comments), and
 * any frame the committed adapter does not understand, go to the generic
 * structural adapter (generic-structural.ts): every string guarded, with
 * continuity per JSON path. Nothing is passed on unread.
 *
 * A body that is binary (or otherwise no text at all) cannot be guarded: its
 * first frame says so (`undecodable`), the rewriter records the error and
 * stops the body before any of it reaches the page (fail closed, with the
 * page notice "could not be decoded").
 *
 * Reported format: `generic` until a known shape commits the stream, then that
 * format (`openai-chat`, `anthropic`, …), carried on each committed frame.
 */
import { isShapedFrame } from '../framing/structural-framer.ts';
import { StructuralFramer } from '../framing/structural-framer.ts';
import type { RawFrame } from '../raw-frame.ts';
import { isRecord } from '../sse-json-render.ts';
import type { AdapterSession, WireAdapter, WireEvent } from '../wire-event.ts';
import { recognisers } from '../wire-recognisers.ts';
import { anthropicMessageJson } from './anthropic-message-json.ts';
import { anthropicMessages } from './anthropic-messages.ts';
import { geminiApiJson, geminiApiStream } from './gemini-api.ts';
import { genericSession } from './generic-structural.ts';
import { ollamaStream } from './ollama.ts';
import { openAiChatJson, openAiChatStream } from './openai-chat.ts';
import { openAiResponsesJson, openAiResponsesStream } from './openai-responses.ts';

const ANTHROPIC_STREAM_TYPES = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
]);

function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `choices` whose elements all are objects and one has the given text holder. */
function hasChoices(json: Record<string, unknown>, holder: 'delta' | 'message'): boolean {
  const { choices } = json;
  if (!Array.isArray(choices) || choices.length === 0) return false;
  if (!choices.every(isRecord)) return false;
  return choices.some((c) => isRecord(c[holder]) || typeof c.text === 'string');
}

function isGeminiChunk(json: unknown): boolean {
  return isRecord(json) && Array.isArray(json.candidates) && json.candidates.every(isRecord);
}

/** The adapter whose streaming events look like this SSE data. */
function sseShape(json: unknown): WireAdapter | undefined {
  if (!isRecord(json)) return undefined;
  if (hasChoices(json, 'delta')) return openAiChatStream;
  const type = json.type;
  if (typeof type === 'string') {
    if (ANTHROPIC_STREAM_TYPES.has(type)) return anthropicMessages;
    if (type.startsWith('response.') && (isRecord(json.response) || 'sequence_number' in json)) {
      return openAiResponsesStream;
    }
  }
  if (isGeminiChunk(json)) return geminiApiStream;
  return undefined;
}

/** The adapter whose answers (or NDJSON lines) look like this JSON value. */
function jsonShape(json: unknown): WireAdapter | undefined {
  if (Array.isArray(json)) {
    return json.length > 0 && json.every(isGeminiChunk) ? geminiApiJson : undefined;
  }
  if (!isRecord(json)) return undefined;
  if (hasChoices(json, 'message')) return openAiChatJson;
  if (json.type === 'message' && json.role === 'assistant' && Array.isArray(json.content)) {
    return anthropicMessageJson;
  }
  if (json.object === 'response' && Array.isArray(json.output)) return openAiResponsesJson;
  if (isGeminiChunk(json)) return geminiApiJson;
  if (
    typeof json.done === 'boolean' &&
    typeof json.model === 'string' &&
    ((isRecord(json.message) && typeof json.message.content === 'string') ||
      typeof json.response === 'string')
  ) {
    return ollamaStream;
  }
  return undefined;
}

/** The known format a frame is in, by its structure; undefined for any other frame. */
export function frameShape(frame: RawFrame): WireAdapter | undefined {
  if (!isShapedFrame(frame)) return undefined;
  if (frame.shape === 'sse')
    return frame.sse === undefined ? undefined : sseShape(parse(frame.sse.data));
  if (frame.shape === 'json') return jsonShape(parse(frame.payload));
  return undefined;
}

function structuralSession(): AdapterSession {
  const generic = genericSession();
  let committed: { adapter: WireAdapter; session: AdapterSession } | undefined;
  let undecodable = false;

  const fallback = (frame: RawFrame, unrecognised?: string): WireEvent => {
    const event = generic.decode(frame);
    if (unrecognised !== undefined) event.unrecognised = unrecognised;
    return event;
  };

  return {
    decode(frame) {
      if (isShapedFrame(frame) && frame.shape === 'binary') {
        const first = !undecodable;
        undecodable = true;
        return first
          ? { frame, slots: [], render: () => '', undecodable: 'binary' }
          : { frame, slots: [], render: () => '' };
      }
      if (committed === undefined) {
        const adapter = frameShape(frame);
        if (adapter !== undefined) committed = { adapter, session: adapter.open() };
      }
      if (committed === undefined) return fallback(frame);
      const event = committed.session.decode(frame);
      // A frame the committed adapter does not understand: guarded as generic JSON / text.
      if (event.unrecognised !== undefined) return fallback(frame, event.unrecognised);
      event.format = committed.adapter.format;
      return event;
    },
    emitted(event) {
      if (generic.owns(event)) generic.emitted?.(event);
      else committed?.session.emitted?.(event);
    },
    blockEnding() {
      return committed?.session.blockEnding() ?? generic.blockEnding();
    },
  };
}

export const genericAdapter: WireAdapter = {
  ...recognisers.generic,
  open: structuralSession,
  createFramer: () => new StructuralFramer(),
};
