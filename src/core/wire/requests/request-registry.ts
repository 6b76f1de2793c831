/** Request adapters in detection order (request-recognisers.ts: site-specific routes first). */
import { aiSdkRequest } from './ai-sdk-request.ts';
import { aiSdkRequestShapeOfBody } from './ai-sdk-request-shape.ts';
import { bigAgiRequest } from './big-agi-request.ts';
import { chatglmRequest } from './chatglm-request.ts';
import { copilotRequest } from './copilot-request.ts';
import { doubaoRequest, qianwenRequest, yuanbaoRequest } from './chinese-site-requests.ts';
import { kimiRequest } from './kimi-request.ts';
import { perplexityRequest } from './perplexity-request.ts';
import { zaiChatsNewRequest, zaiRequest } from './zai-request.ts';
import { geminiWebRequest } from './gemini-web-request.ts';
import {
  anthropicRequest,
  geminiApiRequest,
  ollamaRequest,
  openAiChatRequest,
  openAiResponsesRequest,
} from './message-list-requests.ts';
import { requestRecognisersInOrder } from './request-recognisers.ts';
import type { OutgoingRequest, RequestAdapter } from './request-text.ts';
import {
  chatgptWebRequest,
  claudeWebRequest,
  deepseekWebRequest,
  libreChatRequest,
} from './single-prompt-requests.ts';

const adapters: readonly RequestAdapter[] = [
  chatgptWebRequest,
  claudeWebRequest,
  deepseekWebRequest,
  geminiWebRequest,
  libreChatRequest,
  bigAgiRequest,
  zaiRequest,
  zaiChatsNewRequest,
  chatglmRequest,
  copilotRequest,
  perplexityRequest,
  kimiRequest,
  doubaoRequest,
  yuanbaoRequest,
  qianwenRequest,
  anthropicRequest,
  openAiResponsesRequest,
  geminiApiRequest,
  openAiChatRequest,
  aiSdkRequest,
  ollamaRequest,
];

const byName = new Map(adapters.map((adapter) => [adapter.name, adapter]));

/** Every request adapter, in the recognisers' detection order. */
export const requestAdapters: readonly RequestAdapter[] = requestRecognisersInOrder.map((r) => {
  const adapter = byName.get(r.name);
  if (adapter === undefined) throw new Error(`no request adapter for ${r.name}`);
  return adapter;
});

/**
 * The adapter for a request. With its `body`, an AI SDK body is known by its
 * shape on any URL (WIRE-FORMATS-2.md §1.1: the SDK has no fixed path), before
 * the routes whose paths it may share.
 */
export function detectRequestAdapter(
  request: OutgoingRequest,
  body?: string,
): RequestAdapter | undefined {
  if (body !== undefined && aiSdkRequestShapeOfBody(body) !== undefined) return aiSdkRequest;
  return requestAdapters.find((a) => a.detect(request));
}
