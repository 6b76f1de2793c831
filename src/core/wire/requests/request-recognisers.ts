/**
 * How each request format is recognised (method and URL; the content type
 * where it matters), one recogniser per request adapter, in detection order:
 * site-specific routes before API shapes.
 *
 * Kept apart from the adapters because the MAIN-world script needs exactly this
 * and nothing else: it decides in the page which requests to hand to the
 * guard, which runs in the ISOLATED world with the adapters
 * (src/content/request-host.ts). The adapters take their `name`,
 * `sendsHistory` and `detect` from here (`...requestRecognisers.x`), and
 * request-registry.ts orders them by `requestRecognisersInOrder`.
 */
import { recognisers as answers } from '../wire-recognisers.ts';
import { onRoute } from '../site-route-table.ts';
import type { WireProbe } from '../wire-event.ts';
import type { OutgoingRequest, RequestRecogniser } from './request-text.ts';

export type { RequestRecogniser };

const post = (method: string) => method.toUpperCase() === 'POST';

/**
 * The method a WebSocket frame the page sends is handed over with (issue 20 §2:
 * page/socket-send-queue.ts): a socket has no HTTP method, and no fetch or XHR send
 * uses this one, so a socket's send recogniser never claims an HTTP request.
 */
export const SOCKET_SEND = 'WEBSOCKET';

/**
 * A chat site whose send is the POST its answer comes back to: recognised by the
 * answer's own URL recogniser (wire-recognisers.ts `bySiteUrl`), so the route is
 * written once (this file and that one are in the page's size budget).
 */
const sendTo =
  (site: { detect(probe: WireProbe): boolean }) =>
  (r: OutgoingRequest): boolean =>
    post(r.method) && site.detect({ url: r.url, contentType: '', head: '' });

export const requestRecognisers = {
  chatgptWebRequest: {
    name: 'chatgpt-web',
    sendsHistory: false,
    detect: (r) => post(r.method) && onRoute('chatgpt-send', r.url),
  },
  claudeWebRequest: {
    name: 'claude-web',
    sendsHistory: false,
    detect: (r) => post(r.method) && onRoute('claude-send', r.url),
  },
  deepseekWebRequest: {
    name: 'deepseek-web',
    sendsHistory: false,
    detect: (r) => post(r.method) && onRoute('deepseek-send', r.url),
  },
  geminiWebRequest: {
    name: 'gemini-web',
    sendsHistory: false,
    detect: (r) => post(r.method) && onRoute('gemini-web', r.url),
  },
  libreChatRequest: {
    name: 'librechat',
    sendsHistory: false,
    detect: (r) => post(r.method) && onRoute('librechat-send', r.url),
  },
  /**
   * Z.ai (WIRE-FORMATS-2.md §3.5): Open WebUI's v2 route with the signature parameters in
   * the URL; before OpenAI chat. Integrity-bound: `x-signature` is an HMAC over the text.
   */
  zaiRequest: {
    name: 'zai',
    sendsHistory: true,
    integrityBound: true,
    detect: sendTo(answers.zai),
  },
  /**
   * Z.ai's chat creation (§3.5): the first message, in `chat.history.messages` and
   * `chat.messages`. Integrity-bound like the signed send it precedes: a chat stored
   * with other text than the signed completion carries is not rewritten, the person is asked.
   */
  zaiChatsNewRequest: {
    name: 'zai-chats-new',
    sendsHistory: false,
    integrityBound: true,
    detect: (r) => post(r.method) && onRoute('zai-chats-new', r.url),
  },
  /** ChatGLM (§3.5): `X-Sign` does not cover the body, so the text may be rewritten. */
  chatglmRequest: {
    name: 'chatglm',
    sendsHistory: false,
    detect: sendTo(answers.chatglm),
  },
  /** Microsoft Copilot (WIRE-FORMATS-2.md §4.2): the `send` frames on its chat WebSocket. */
  copilotRequest: {
    name: 'copilot',
    sendsHistory: false,
    detect: (r) => r.method === SOCKET_SEND && onRoute('copilot', r.url),
  },
  /** Perplexity (§4.1, part 1 §5.5). */
  perplexityRequest: {
    name: 'perplexity',
    sendsHistory: false,
    detect: sendTo(answers.perplexity),
  },
  /** Kimi (WIRE-FORMATS-2.md §2.2): a binary Connect envelope to the answer's route, read as bytes. */
  kimiRequest: {
    name: 'kimi-web',
    sendsHistory: false,
    bytes: true,
    detect: sendTo(answers.kimiWeb),
  },
  /** Doubao (WIRE-FORMATS-2.md §3.3): the send is the answer's route, `/chat/completion?aid=…`. */
  doubaoRequest: { name: 'doubao-web', sendsHistory: false, detect: sendTo(answers.doubaoWeb) },
  /** Tencent Yuanbao (§3.4): `POST yuanbao.tencent.com/api/chat/{conversationId}`. */
  yuanbaoRequest: { name: 'yuanbao-web', sendsHistory: false, detect: sendTo(answers.yuanbaoWeb) },
  /** Qianwen (§3.2, LOW): `POST chat2.qianwen.com/api/v2/chat?biz_id=ai_qwen…`. */
  qianwenRequest: { name: 'qianwen-web', sendsHistory: false, detect: sendTo(answers.qianwenWeb) },
  bigAgiRequest: {
    name: 'big-agi',
    sendsHistory: true,
    detect: (r) =>
      post(r.method) &&
      // tRPC puts the procedure path in the URL; a batch joins several with commas.
      onRoute('big-agi-send', r.url),
  },
  anthropicRequest: {
    name: 'anthropic',
    sendsHistory: true,
    detect: (r) => post(r.method) && onRoute('anthropic-messages', r.url),
  },
  openAiResponsesRequest: {
    name: 'openai-responses',
    sendsHistory: true,
    detect: (r) => post(r.method) && onRoute('openai-responses-send', r.url),
  },
  geminiApiRequest: {
    name: 'gemini-api',
    sendsHistory: true,
    detect: (r) => post(r.method) && onRoute('gemini-api-send', r.url),
  },
  openAiChatRequest: {
    name: 'openai-chat',
    sendsHistory: true,
    detect: (r) => post(r.method) && onRoute('openai-chat-send', r.url),
  },
  /**
   * The AI SDK's `useCompletion` default route (WIRE-FORMATS-2.md §1.1); `useChat`
   * bodies are recognised by their shape on any route (ai-sdk-request.ts).
   */
  aiSdkRequest: {
    name: 'ai-sdk',
    sendsHistory: true,
    detect: (r) => post(r.method) && onRoute('ai-sdk-completion', r.url),
  },
  ollamaRequest: {
    name: 'ollama',
    sendsHistory: true,
    detect: (r) => post(r.method) && onRoute('ollama', r.url),
  },
} satisfies Record<string, RequestRecogniser>;

/** Every request recogniser, in detection order. */
export const requestRecognisersInOrder: readonly RequestRecogniser[] = [
  requestRecognisers.chatgptWebRequest,
  requestRecognisers.claudeWebRequest,
  requestRecognisers.deepseekWebRequest,
  requestRecognisers.geminiWebRequest,
  requestRecognisers.libreChatRequest,
  requestRecognisers.zaiRequest,
  requestRecognisers.zaiChatsNewRequest,
  requestRecognisers.chatglmRequest,
  requestRecognisers.copilotRequest,
  requestRecognisers.perplexityRequest,
  requestRecognisers.kimiRequest,
  requestRecognisers.doubaoRequest,
  requestRecognisers.yuanbaoRequest,
  requestRecognisers.qianwenRequest,
  requestRecognisers.bigAgiRequest,
  requestRecognisers.anthropicRequest,
  requestRecognisers.openAiResponsesRequest,
  requestRecognisers.geminiApiRequest,
  requestRecognisers.openAiChatRequest,
  requestRecognisers.aiSdkRequest,
  requestRecognisers.ollamaRequest,
];

/** The first recogniser that claims the request, if any. */
export function recogniseRequest(request: OutgoingRequest): RequestRecogniser | undefined {
  return requestRecognisersInOrder.find((recogniser) => recogniser.detect(request));
}
