/**
 * What an adapter makes of one frame: the text slots it carries (per channel)
 * and how to re-serialise the SAME frame with other text in those slots.
 */
import type { MatchEvent } from '../guard/guard-event.ts';
import type { Framer, RawFrame } from './raw-frame.ts';

/**
 * How a slot's text relates to its channel:
 * - `delta`: the next piece of the channel's text (OpenAI, Anthropic, Ollama…);
 * - `snapshot`: the channel's whole text so far (Gemini web, old ChatGPT);
 * - `echo`: the channel's complete text, repeated at its end (Responses `*.done`,
 *   LibreChat `final`); the channel ends here.
 */
export type SlotMode = 'delta' | 'snapshot' | 'echo';

export interface TextSlot {
  /** The guard stream this text belongs to, e.g. `choice:0`, `block:2`. */
  channel: string;
  mode: SlotMode;
  text: string;
}

export interface WireEvent {
  frame: RawFrame;
  /** Text the guard must see, in order. Empty for frames without guarded text. */
  slots: TextSlot[];
  /** Channels that end before this frame (e.g. `content_block_stop`). */
  ends?: string[];
  /** The frame with each slot's text replaced by `texts[i]` (same order as `slots`). */
  render(texts: readonly string[]): string;
  /** Set when the adapter did not understand the frame: passed through unchanged and reported. */
  unrecognised?: string;
  /**
   * Flag events the adapter raised itself from non-text fields it reads (an
   * instruction-shaped memory write, issue 5 §4): reported like guard events,
   * never changing the frame.
   */
  flags?: { channel: string; event: MatchEvent }[];
  /**
   * Set when the body cannot be decoded at all (binary): no text can be
   * guarded, so the rewriter records an error and stops the body here, before
   * any of it reaches the page (fail closed; the page says "could not be decoded").
   */
  undecodable?: string;
  /**
   * The format this frame was recognised as, when the adapter learns it from
   * the body (the generic adapter, once a frame shows a known shape).
   */
  format?: WireFormat;
}

/** The rule id of the error event recorded for a body that could not be decoded. */
export const UNDECODABLE_RULE = 'wire-undecodable';

export type WireFormat =
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'ollama'
  | 'gemini-api'
  | 'chatgpt-web'
  | 'claude-web'
  | 'deepseek-web'
  | 'gemini-web'
  | 'open-webui'
  | 'librechat'
  | 'lobechat'
  /** The Vercel AI SDK's streams (WIRE-FORMATS-2.md §1): UI message stream, v3/v4 data stream, text stream. */
  | 'ai-sdk-ui'
  | 'ai-sdk-data'
  | 'ai-sdk-text'
  /** Chat sites of WIRE-FORMATS-2.md §2–§4, one adapter each. */
  | 'grok-web'
  | 'huggingchat'
  | 'le-chat'
  | 'qwen-chat'
  /** Z.ai, ChatGLM (WIRE-FORMATS-2.md §3.5) and Perplexity (§4.1). */
  | 'zai'
  | 'chatglm'
  | 'perplexity'
  | 'kimi-web'
  | 'doubao-web'
  | 'yuanbao-web'
  | 'qianwen-web'
  /** big-AGI v2's tRPC answer stream (WIRE-FORMATS-2.md §4.7). */
  | 'big-agi'
  /** Microsoft Copilot's WebSocket frames (WIRE-FORMATS-2.md §4.2). */
  | 'copilot'
  /** An answer no adapter claims, guarded by the generic structural adapter (adapters/structural.ts). */
  | 'generic';

/** What is known about a response when choosing an adapter. */
export interface WireProbe {
  url: string;
  method?: string;
  contentType: string;
  /** The first decoded characters of the body (up to ~1 KB). */
  head: string;
  /**
   * The request's body looked like a chat request (requests/chat-request-shape.ts):
   * its answer is guarded even when no adapter claims it (DESIGN.md §3.5).
   */
  chatRequest?: boolean;
  /**
   * The client the request body came from, when its shape tells
   * (requests/ai-sdk-request.ts `aiSdkRequestShape`): AI SDK traffic is known
   * on any URL, also when an app or proxy drops the marker headers
   * (WIRE-FORMATS-2.md §1, "Detection pitfall").
   */
  requestShape?: RequestShape;
  /** Response headers the recognisers read (lower-case names), e.g. `x-vercel-ai-ui-message-stream`. */
  headers?: Readonly<Record<string, string>>;
}

/** A request body's client, by shape: AI SDK 5+ `useChat` (`parts`), AI SDK 3/4 `useChat` (`content`). */
export type RequestShape = 'ai-sdk-ui' | 'ai-sdk-v4';

/**
 * `sniffed`: the adapter frames the body by its own structure (framing/structural-framer.ts).
 * `connect`: Connect streaming envelopes (framing/connect-framer.ts), the one
 * framing read as bytes (`readsBytes`).
 */
export type Framing = 'sse' | 'ndjson' | 'whole-body' | 'length-prefixed' | 'sniffed' | 'connect';

/**
 * True when the body is read as bytes, not as UTF-8 text: the text the
 * rewriter takes and gives is then a byte string, one code unit per byte
 * (byte-string.ts), because the framing counts lengths in bytes (Kimi's
 * Connect envelopes, WIRE-FORMATS-2.md §2.3). Whoever feeds a rewriter decodes
 * and encodes by this (wire-transform.ts, the page's remote guard, csg replay).
 */
export function readsBytes(recogniser: Pick<WireRecogniser, 'framing'>): boolean {
  return recogniser.framing === 'connect';
}

export interface AdapterSession {
  decode(frame: RawFrame): WireEvent;
  /** Called for each frame actually sent to the page (frames after a block never are). */
  emitted?(event: WireEvent): void;
  /**
   * Raw text that ends the stream the way this provider ends a refused answer,
   * appended after the last released frame when the guard blocks (DESIGN.md §3.6).
   */
  blockEnding(): string;
}

/** How a response in one wire format is recognised (wire-recognisers.ts). */
export interface WireRecogniser {
  /** Unique among the recognisers (format and framing are not: three adapters read Open WebUI). */
  readonly id: string;
  readonly format: WireFormat;
  readonly framing: Framing;
  detect(probe: WireProbe): boolean;
}

export interface WireAdapter extends WireRecogniser {
  open(): AdapterSession;
  /** Required for `length-prefixed` and `sniffed` framing (e.g. Gemini web's `)]}'` frames). */
  createFramer?(): Framer;
}

/** A frame that carries no guarded text: re-emitted byte for byte. */
export function passThrough(frame: RawFrame, unrecognised?: string): WireEvent {
  const event: WireEvent = { frame, slots: [], render: () => frame.raw };
  if (unrecognised !== undefined) event.unrecognised = unrecognised;
  return event;
}
