/**
 * Kimi's send (WIRE-FORMATS-2.md §2.2): one Connect envelope, `[flags 0]
 * [uint32 BE length][UTF-8 JSON]` (a bare JSON body is refused by the server),
 * the person's text at `message.blocks[i].text.content`. The body arrives as a
 * byte string (request-text.ts `bytes`); a rewritten text is re-enveloped with
 * the byte length of the new JSON ("recompute the 4-byte **byte** length").
 * Anything but one whole uncompressed envelope is not what the recogniser
 * promised: a SyntaxError, so the send fails closed.
 */
import { textOfUtf8ByteString } from '../byte-string.ts';
import {
  CONNECT_COMPRESSED,
  CONNECT_HEADER_BYTES,
  renderConnectEnvelope,
} from '../framing/connect-framer.ts';
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter, RequestText } from './request-text.ts';

/** The flags and the JSON text of a body that is exactly one envelope. */
function envelopeOf(body: string): { flags: number; json: string } {
  if (body.length < CONNECT_HEADER_BYTES) throw new SyntaxError('not a Connect envelope');
  const flags = body.charCodeAt(0);
  const length =
    body.charCodeAt(1) * 0x1000000 +
    body.charCodeAt(2) * 0x10000 +
    body.charCodeAt(3) * 0x100 +
    body.charCodeAt(4);
  if ((flags & CONNECT_COMPRESSED) !== 0 || body.length !== CONNECT_HEADER_BYTES + length) {
    throw new SyntaxError('not one whole uncompressed Connect envelope');
  }
  const json = textOfUtf8ByteString(body.slice(CONNECT_HEADER_BYTES));
  if (json === undefined) throw new SyntaxError('envelope payload is not UTF-8');
  return { flags, json };
}

function locate(body: string): RequestText[] {
  const parsed: unknown = JSON.parse(envelopeOf(body).json);
  const message = isRecord(parsed) ? parsed.message : undefined;
  const blocks = isRecord(message) ? message.blocks : undefined;
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((block: unknown, i): RequestText[] => {
    const text = isRecord(block) && isRecord(block.text) ? block.text.content : undefined;
    return typeof text === 'string'
      ? [
          {
            path: ['message', 'blocks', i, 'text', 'content'],
            text,
            part: 'new',
            role: 'user',
            message: 0,
          },
        ]
      : [];
  });
}

export const kimiRequest: RequestAdapter = {
  ...requestRecognisers.kimiRequest,
  locate,
  rewrite: (body, edits) => {
    const { flags, json } = envelopeOf(body);
    return renderConnectEnvelope(flags, replaceStrings(json, edits));
  },
};
