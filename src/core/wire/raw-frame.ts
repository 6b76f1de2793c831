/** One frame of a response body exactly as it arrived, plus what its framing says it holds. */
export interface RawFrame {
  /** The frame's exact text, terminator included: re-emitted as is when nothing changes. */
  raw: string;
  /** SSE: the dispatched event (absent for comment-only or incomplete frames). */
  sse?: SseFields;
  /** NDJSON / whole-body: the payload text without its line terminator. */
  payload?: string;
}

export interface SseFields {
  event?: string;
  data: string;
  id?: string;
}

/** Splits decoded body text into frames. */
export interface Framer {
  push(text: string): RawFrame[];
  /** What is left at the end of the body (an incomplete last frame passes through as is). */
  end(): RawFrame[];
}
