/** Request adapters in detection order (site-specific routes before API shapes). */
import { geminiWebRequest } from './gemini-web-request.ts';
import {
  anthropicRequest,
  geminiApiRequest,
  ollamaRequest,
  openAiChatRequest,
  openAiResponsesRequest,
} from './message-list-requests.ts';
import type { OutgoingRequest, RequestAdapter } from './request-text.ts';
import {
  chatgptWebRequest,
  claudeWebRequest,
  deepseekWebRequest,
  libreChatRequest,
} from './single-prompt-requests.ts';

export const requestAdapters: readonly RequestAdapter[] = [
  chatgptWebRequest,
  claudeWebRequest,
  deepseekWebRequest,
  geminiWebRequest,
  libreChatRequest,
  anthropicRequest,
  openAiResponsesRequest,
  geminiApiRequest,
  openAiChatRequest,
  ollamaRequest,
];

export function detectRequestAdapter(request: OutgoingRequest): RequestAdapter | undefined {
  return requestAdapters.find((a) => a.detect(request));
}
