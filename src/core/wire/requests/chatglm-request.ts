/**
 * ChatGLM's send (WIRE-FORMATS-2.md §3.5): `messages:[{role:"user",
 * content:[{type:"text", text}, …]}]`, the OpenAI content-part shape, so the
 * message-list reader finds the text. `X-Sign` is an md5 of timestamp, nonce
 * and a secret, not of the body: rewriting the text does not break the send.
 */
import { replaceStrings } from '../json-string-span.ts';
import { openAiChatRequest } from './message-list-requests.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter } from './request-text.ts';

export const chatglmRequest: RequestAdapter = {
  ...requestRecognisers.chatglmRequest,
  locate: (body) => openAiChatRequest.locate(body),
  rewrite: replaceStrings,
};
