/**
 * Reading the first bytes of a response body to choose a wire adapter, without taking
 * them from the page.
 *
 * The bytes are read from `response.clone()` (the browser tees the body), and the clone
 * is cancelled as soon as the head is known. The original Response and its body are
 * left as they were: a response no adapter recognises reaches the page as the very
 * object the native `fetch` resolved with, even after a peek. (A cancelled tee branch
 * does not cancel the network stream while the other branch is alive.)
 *
 * How long a peek lasts is a function of the bytes only, never of time: it stops when an
 * adapter recognises the head, when the head shows a complete first record that no
 * adapter recognised (so an unrelated event stream is not held back waiting for 1 KB),
 * at `HEAD_BYTES`, or when the body ends.
 *
 * MAIN world: no extension APIs.
 */

import {
  Body,
  call,
  decodeText,
  getReader,
  NativeTextDecoder,
  STREAM,
  Reader,
  readChunk,
} from './intrinsics.ts';

/** How much of the body a probe carries (WireProbe.head, "up to ~1 KB"). */
export const HEAD_BYTES = 1024;

/** Content types a wire adapter could want (Gemini web answers as text/plain). */
const CANDIDATE_TYPES = [
  'text/event-stream',
  'application/x-ndjson',
  'application/json',
  'text/plain',
];

/** The media type of a Content-Type header, lower-cased, parameters kept. */
export function normaliseContentType(header: string | null): string {
  return (header ?? '').trim().toLowerCase();
}

/** True when a response of this content type is worth peeking at. */
export function isCandidateContentType(contentType: string): boolean {
  return CANDIDATE_TYPES.some((type) => contentType.includes(type));
}

/** Gemini web's anti-hijacking prefix opens its length-prefixed frames. */
const ANTI_HIJACK_PREFIX = ")]}'";

/** A line that ends (LF, CRLF or CR) after some non-blank text. */
const COMPLETE_LINE = /\S[^\r\n]*(?:\r\n|\r|\n)/;

/** One SSE line ending; a CR is an ending only when no LF follows it. */
const EOL = String.raw`(?:\r\n|\r(?!\n)|\n)`;

/** An SSE event with a `data` field, closed by its blank line. */
const COMPLETE_DATA_EVENT = new RegExp(
  String.raw`(?:^|\r\n|\r|\n)data(?::[^\r\n]*)?${EOL}(?:[^\r\n]+${EOL})*${EOL}`,
);

/**
 * True when `head` already holds what a head-based adapter looks at, so reading on is
 * pointless: for an event stream, its first complete event with data (comments and
 * keep-alives before it do not count); for NDJSON, its first complete line; for plain
 * text, anything unless it opens like a Gemini web body. JSON bodies are whole
 * documents: they are read up to the limit or their end.
 */
export function headIsDecisive(contentType: string, head: string): boolean {
  if (contentType.includes('text/event-stream')) return COMPLETE_DATA_EVENT.test(head);
  if (contentType.includes('application/x-ndjson')) return COMPLETE_LINE.test(head);
  if (contentType.includes('application/json')) return false;
  if (contentType.includes('text/plain')) {
    // Decisive unless the head is, or could still become, Gemini web's prefix.
    const start = head.trimStart();
    return !(start.startsWith(ANTI_HIJACK_PREFIX) || ANTI_HIJACK_PREFIX.startsWith(start));
  }
  return true;
}

/** The body itself failed (network error, abort) while its head was being read. */
export class BodyFailedWhilePeeked extends Error {
  constructor(readonly reason: unknown) {
    super('the response body failed while its head was read');
    this.name = 'BodyFailedWhilePeeked';
  }
}

export interface PeekedHead {
  /** The first decoded characters of the body (at most `limit` bytes of it). */
  head: string;
  /** True when the whole body was read. */
  ended: boolean;
}

/**
 * Reads the head of `response`'s body from a clone. `enough(head)` is asked after each
 * chunk; reading stops when it answers true, at `limit` bytes, or at the end of the body.
 * Rejects with `BodyFailedWhilePeeked` when the body errors (network error, abort);
 * an exception thrown by `enough` propagates as it is.
 */
export async function peekHead(
  response: Response,
  enough: (head: string) => boolean,
  limit: number = HEAD_BYTES,
): Promise<PeekedHead> {
  const body = call<ReadableStream<Uint8Array> | null>(
    Body.body,
    call<Response>(Body.clone, response),
  );
  if (body === null) return { head: '', ended: true };
  const reader = getReader(body);
  const decoder = new NativeTextDecoder();
  let head = '';
  let bytes = 0;
  try {
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await readChunk(reader);
      } catch (reason) {
        throw new BodyFailedWhilePeeked(reason);
      }
      const { done, value } = result;
      if (done) return { head: head + decodeText(decoder), ended: true };
      const take = value.byteLength <= limit - bytes ? value : value.subarray(0, limit - bytes);
      bytes += take.byteLength;
      head += decodeText(decoder, take, STREAM);
      if (bytes >= limit || enough(head)) return { head, ended: false };
    }
  } finally {
    // Only the clone is cancelled; the page's body keeps every byte.
    call<Promise<void>>(Reader.cancel, reader).catch(() => undefined);
  }
}
