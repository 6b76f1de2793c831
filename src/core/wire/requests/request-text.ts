/**
 * The request side of the wire layer: where the text a person sends sits in
 * each provider's request body, so outgoing protection (issue 5) can rewrite
 * the copy that leaves — the new message, attached text, and, for clients that
 * send it, the history — while every other byte stays as the page wrote it.
 */
import type { JsonPath } from '../json-string-span.ts';

export type RequestPart = 'new' | 'history' | 'attachment' | 'system';

export type RequestRole = 'user' | 'assistant' | 'system' | 'tool';

export interface RequestText {
  /** JSON path of the string (inside the decoded inner document for form-encoded bodies). */
  path: JsonPath;
  part: RequestPart;
  role: RequestRole;
  /** Position of the message in the body's message list (0 for single-prompt bodies). */
  message: number;
  text: string;
}

export interface RequestEdit {
  path: JsonPath;
  value: string;
}

export interface OutgoingRequest {
  url: string;
  method: string;
  contentType: string;
}

/** How a request in one format is recognised (request-recognisers.ts). */
export interface RequestRecogniser {
  /** Which client or API the body comes from (unique). */
  readonly name: string;
  /** Whether the body sends earlier turns (so history projection applies). */
  readonly sendsHistory: boolean;
  /**
   * The server checks a signature over the person's text (Z.ai, WIRE-FORMATS-2.md
   * §0.2, §3.5): a copy with changed text is rejected, so the outgoing guard never
   * rewrites it and asks the person instead (outgoing-request-guard.ts).
   */
  readonly integrityBound?: boolean;
  /**
   * The body is read as bytes, not UTF-8 text (Kimi's Connect envelope,
   * WIRE-FORMATS-2.md §2.2, whose length counts bytes): `locate` and `rewrite`
   * take and give a byte string, one code unit per byte (byte-string.ts), and
   * the page hooks read and send the body as bytes (outgoing-hook.ts).
   */
  readonly bytes?: true;
  detect(request: OutgoingRequest): boolean;
}

export interface RequestAdapter extends RequestRecogniser {
  /** Every text in the body; throws a SyntaxError on a body that is not what `detect` promised. */
  locate(body: string): RequestText[];
  /** The body with the given strings replaced and nothing else changed. */
  rewrite(body: string, edits: readonly RequestEdit[]): string;
}
