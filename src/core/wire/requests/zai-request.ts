/**
 * Z.ai's send (WIRE-FORMATS-2.md §3.5): an Open WebUI-style body, the person's
 * text in `messages[]` (the last user message; earlier ones are history) and
 * again in `signature_prompt`, which the `x-signature` HMAC covers. The
 * recogniser marks it integrity-bound: the outgoing guard asks instead of
 * rewriting (outgoing-request-guard.ts), so `rewrite` here only ever serves a
 * caller that knows the signature is not checked (`csg`, tests).
 */
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import { openAiChatRequest } from './message-list-requests.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter, RequestText } from './request-text.ts';

function signaturePrompt(body: string): RequestText[] {
  const json: unknown = JSON.parse(body);
  if (!isRecord(json)) throw new SyntaxError('request body is not a JSON object');
  const text = json.signature_prompt;
  return typeof text === 'string'
    ? [{ path: ['signature_prompt'], text, part: 'new', role: 'user', message: 0 }]
    : [];
}

export const zaiRequest: RequestAdapter = {
  ...requestRecognisers.zaiRequest,
  locate: (body) => [...openAiChatRequest.locate(body), ...signaturePrompt(body)],
  rewrite: replaceStrings,
};
