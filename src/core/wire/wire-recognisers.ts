/**
 * How each wire format is recognised: URL, method, content type and the first
 * decoded characters of the body (`WireProbe`), one recogniser per adapter, in
 * the order detection tries them (site-specific adapters, matched by URL,
 * before the API formats whose event shapes they reuse; streams before whole
 * bodies).
 *
 * Kept apart from the adapters themselves because the MAIN-world script needs
 * exactly this and nothing else: it decides in the page which responses to
 * hand to the guard, which runs in the ISOLATED world with the adapters
 * (src/content/guard-host.ts). The adapters take their `id`, `format`,
 * `framing` and `detect` from here (`...recognisers.x`), so the two can never
 * disagree, and adapter-registry.ts orders the adapters by `wireRecognisers`.
 */
import { ANTI_HIJACK_PREFIX } from './framing/length-prefixed-framer.ts';
import type { Framing, WireFormat, WireProbe, WireRecogniser } from './wire-event.ts';
import { onRoute } from './site-route-table.ts';
import type { SiteRouteName } from './site-routes.ts';

export type { WireRecogniser };

/** LobeChat event names, as they open a captured body (for detection without a URL). */
const LOBECHAT_HEAD =
  /^(?:id:[^\n]*\n)?event: ?(?:text|reasoning|tool_calls|usage|grounding|speed|stop|content_part|reasoning_part|base64_image)\r?\ndata:/m;

/** A chat by id (uuid), or a shared chat; not the list, tags, folders or other `/chats/` routes. */
const OPEN_WEBUI_CHAT_URL =
  /\/api\/v1\/chats\/(?:share\/)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/?(?:[?#]|$)/i;

/**
 * The AI SDK UI message stream as its body opens (WIRE-FORMATS-2.md §1.3):
 * after optional `: stream-open` / `: keep-alive` comments, a `data:` line whose
 * chunk (serialised by `JSON.stringify`, so `type` is its first key) is one that
 * can open a stream.
 */
const AI_SDK_UI_HEAD =
  /^(?:[ \t]*(?::.*)?\r?\n)*data: ?\{"type":"(?:(?:text-|reasoning-|tool-input-)?start"|start-step|message-metadata|data-|source-|file"|tool-)/;

/**
 * The AI SDK 3/4 data stream as its first line opens (§1.6): `f:{"messageId":…}`
 * from `streamText`, or a text, reasoning, error, data, annotation or tool part.
 */
const AI_SDK_DATA_HEAD = /^(?:f:\{"messageId":|[03g]:"|[28]:\[|[9abc]:\{"toolCallId":)/;

const header = (probe: WireProbe, name: string): string | undefined => probe.headers?.[name];

/** The content types most recognisers start from (one helper each: the page's size budget). */
const isEventStream = (probe: WireProbe) => probe.contentType.includes('text/event-stream');
const isJson = (probe: WireProbe) => probe.contentType.includes('application/json');

/** Content types that are media, never an answer's text: left to the page as they are. */
const MEDIA_TYPE = /^\s*(?:audio|image|video|font|model)\//;

/**
 * Event shapes of the API formats, as a body's head shows them whatever its
 * URL, content type or key order (the generic adapter reads them by structure,
 * adapters/structural.ts): an OpenAI-compatible chunk or answer (`choices` of
 * `delta`, `message` or `text`), Anthropic Messages events, OpenAI Responses
 * events, Gemini API chunks, Ollama lines.
 */
const KNOWN_SHAPE_HEAD = [
  /"choices"\s*:\s*\[\s*\{[^]*"(?:delta|message)"\s*:\s*\{/,
  /"choices"\s*:\s*\[\s*\{[^]*"text"\s*:\s*"/,
  /"type"\s*:\s*"(?:message_start|content_block_(?:start|delta)|response\.[a-z_.]+)"/,
  /"candidates"\s*:\s*\[\s*\{/,
  /"done"\s*:\s*(?:true|false)\b[^]*"model"\s*:|"model"\s*:[^]*"done"\s*:\s*(?:true|false)\b/,
];

/** True when the head opens like a JSON or SSE body in one of the known event shapes. */
export function headShowsKnownShape(head: string): boolean {
  const body = head.replace(/^\uFEFF?\s*/, '');
  // Only a body framed as JSON or SSE (after comments and blank lines) qualifies.
  if (!/^(?:[{[]|(?:(?:data|event|id|retry)[ \t]*:|:))/.test(body)) return false;
  return KNOWN_SHAPE_HEAD.some((shape) => shape.test(body));
}

/**
 * A chat site's recogniser: its answers known by their URL alone (id and format alike),
 * the route of that name in site-routes.ts (data, not code in the page: see there).
 */
const bySiteUrl = <F extends WireFormat & SiteRouteName>(id: F, framing: Framing) => ({
  id,
  format: id,
  framing,
  detect: (probe: WireProbe) => onRoute(id, probe.url),
});

export const recognisers = {
  aiSdkUiStream: {
    id: 'ai-sdk-ui-stream',
    format: 'ai-sdk-ui',
    framing: 'sse',
    // The marker header, the request body's shape, or the first chunk: the client itself
    // never checks the header and apps drop it (§1, "Detection pitfall").
    detect: (probe) =>
      header(probe, 'x-vercel-ai-ui-message-stream') !== undefined ||
      (isEventStream(probe) &&
        (probe.requestShape === 'ai-sdk-ui' || AI_SDK_UI_HEAD.test(probe.head))),
  },
  aiSdkDataStream: {
    id: 'ai-sdk-data-stream',
    format: 'ai-sdk-data',
    framing: 'ndjson',
    detect: (probe) =>
      header(probe, 'x-vercel-ai-data-stream') !== undefined ||
      (!isEventStream(probe) &&
        !probe.contentType.includes('json') &&
        AI_SDK_DATA_HEAD.test(probe.head.replace(/^\uFEFF/, ''))),
  },
  aiSdkTextStream: {
    id: 'ai-sdk-text-stream',
    format: 'ai-sdk-text',
    framing: 'sniffed',
    // No marker at all (§1.7): only an AI SDK request answered with plain text.
    detect: (probe) => probe.requestShape !== undefined && probe.contentType.includes('text/plain'),
  },
  anthropicMessageJson: {
    id: 'anthropic-message-json',
    format: 'anthropic',
    framing: 'whole-body',
    detect: (probe) =>
      isJson(probe) &&
      !probe.url.includes('/chat_conversations') &&
      // A Responses API body nests `"type":"message"` items too.
      !/"object"\s*:\s*"response"/.test(probe.head) &&
      (onRoute('anthropic-messages', probe.url) ||
        (/"type"\s*:\s*"message"/.test(probe.head) && /"role"\s*:\s*"assistant"/.test(probe.head))),
  },
  anthropicMessages: {
    id: 'anthropic-messages',
    format: 'anthropic',
    framing: 'sse',
    detect: (probe) =>
      isEventStream(probe) &&
      (probe.head.includes('event: message_start') ||
        probe.head.includes('"type":"message_start"')),
  },
  chatgptWebHistory: {
    id: 'chatgpt-web-history',
    format: 'chatgpt-web',
    framing: 'whole-body',
    detect: (probe) =>
      isJson(probe) &&
      (onRoute('chatgpt-history', probe.url) ||
        // A capture without its URL: the conversation document opens with its title and tree.
        (probe.url === '' &&
          /^\s*\{"title": ?"/.test(probe.head) &&
          /"mapping": ?\{/.test(probe.head))),
  },
  chatgptWeb: {
    id: 'chatgpt-web',
    format: 'chatgpt-web',
    framing: 'sse',
    detect: (probe) =>
      isEventStream(probe) &&
      (onRoute('chatgpt-stream', probe.url) || onRoute('chatgpt-head', probe.head)),
  },
  claudeWebStream: {
    id: 'claude-web-stream',
    format: 'claude-web',
    framing: 'sse',
    detect: (probe) =>
      onRoute('claude-stream', probe.url) &&
      (isEventStream(probe) || /^\s*(?:event|data):/.test(probe.head)),
  },
  claudeWebHistory: {
    id: 'claude-web-history',
    format: 'claude-web',
    framing: 'whole-body',
    detect: (probe) =>
      onRoute('claude-history', probe.url) &&
      (probe.method === undefined || probe.method.toUpperCase() === 'GET') &&
      isJson(probe),
  },
  deepseekWebHistory: {
    id: 'deepseek-web-history',
    format: 'deepseek-web',
    framing: 'whole-body',
    detect: (probe) =>
      isJson(probe) &&
      (onRoute('deepseek-history', probe.url) ||
        // A capture without its URL: the API envelope around `chat_session` and `chat_messages`.
        (probe.url === '' &&
          probe.head.includes('"biz_data"') &&
          /"chat_session" ?:/.test(probe.head) &&
          /"chat_messages" ?:/.test(probe.head))),
  },
  deepseekWeb: {
    id: 'deepseek-web',
    format: 'deepseek-web',
    framing: 'sse',
    detect: (probe) =>
      isEventStream(probe) &&
      (onRoute('deepseek-stream', probe.url) ||
        (/(?:^|\n)event: ?ready\r?\n/.test(probe.head) &&
          probe.head.includes('"response_message_id"'))),
  },
  geminiApiStream: {
    id: 'gemini-api-stream',
    format: 'gemini-api',
    framing: 'sse',
    detect: (probe) =>
      isEventStream(probe) &&
      (onRoute('gemini-api-stream', probe.url) ||
        /^\s*data:\s*\{\s*"candidates"\s*:/.test(probe.head)),
  },
  geminiApiJson: {
    id: 'gemini-api-json',
    format: 'gemini-api',
    framing: 'whole-body',
    detect: (probe) =>
      isJson(probe) && onRoute('gemini-api-json', probe.url) && !/[?&]alt=sse/.test(probe.url),
  },
  libreChatHistory: {
    id: 'librechat-history',
    format: 'librechat',
    framing: 'whole-body',
    detect: (probe) =>
      (probe.method === undefined || probe.method.toUpperCase() === 'GET') &&
      isJson(probe) &&
      onRoute('librechat-history', probe.url),
  },
  libreChat: {
    id: 'librechat',
    format: 'librechat',
    framing: 'sse',
    detect: (probe) =>
      isEventStream(probe) &&
      (onRoute('librechat-stream', probe.url) ||
        /data: ?\{"(?:created|sync|final|event)":/.test(probe.head) ||
        probe.head.includes('"event":"on_run_step"')),
  },
  lobeChat: {
    id: 'lobechat',
    format: 'lobechat',
    framing: 'sse',
    detect: (probe) =>
      onRoute('lobechat', probe.url) || (isEventStream(probe) && LOBECHAT_HEAD.test(probe.head)),
  },
  // The chat sites of WIRE-FORMATS-2.md §2–§4, by URL only: this file is in the page's size
  // budget (test/e2e/build-output.test.ts); a raw capture replays with `csg replay --url`.
  /** xAI Grok web (§4.3): NDJSON answers to the conversation routes. */
  grokWeb: bySiteUrl('grok-web', 'ndjson'),
  /** HuggingChat (chat-ui, §4.6): the JSONL answer to a conversation POST, and its SSE reattach. */
  huggingChat: bySiteUrl('huggingchat', 'sniffed'),
  /** Mistral Le Chat (§4.4, LOW): the `N:json` line answer to `/api/chat`. */
  leChat: bySiteUrl('le-chat', 'ndjson'),
  /** Qwen Chat (§3.1, MED): before OpenAI chat, whose URL shape it shares. */
  qwenChat: bySiteUrl('qwen-chat', 'sse'),
  /**
   * Z.ai (§3.5, MED): Open WebUI's v2 route, before OpenAI chat; on another host (a mock,
   * a mirror) known by the signature parameters its page adds to the URL.
   */
  zai: bySiteUrl('zai', 'sse'),
  /** Zhipu ChatGLM (§3.5, MED): the assistant stream, cumulative per part. */
  chatglm: bySiteUrl('chatglm', 'sse'),
  /** Perplexity (§4.1, MED): the ask stream of diff-block patches. */
  perplexity: bySiteUrl('perplexity', 'sse'),
  /** Kimi (§2, MED): Connect envelopes, read as bytes. */
  kimiWeb: bySiteUrl('kimi-web', 'connect'),
  /** Kimi's history load (§2.1): JSON `{messages:[…blocks]}`. */
  kimiWebHistory: {
    id: 'kimi-web-history',
    format: 'kimi-web',
    framing: 'whole-body',
    detect: (probe) => onRoute('kimi-web-history', probe.url),
  },
  /**
   * Doubao (§3.3, MED): the current `/chat/completion?aid=…` SSE (not the legacy
   * `samantha` one), by path and its app-id parameter (DeepSeek's route has none).
   */
  doubaoWeb: bySiteUrl('doubao-web', 'sse'),
  /** Tencent Yuanbao (§3.4, MED). */
  yuanbaoWeb: bySiteUrl('yuanbao-web', 'sse'),
  /** Qianwen (§3.2, LOW): the current `chat2.qianwen.com` SSE, by path and its `biz_id`. */
  qianwenWeb: bySiteUrl('qianwen-web', 'sse'),
  /** big-AGI v2 (§4.7, HIGH): its server's tRPC JSON-lines answer, on any host (self-hosted). */
  bigAgi: bySiteUrl('big-agi', 'ndjson'),
  ollamaStream: {
    id: 'ollama-stream',
    format: 'ollama',
    framing: 'ndjson',
    detect: (probe) =>
      probe.contentType.includes('application/x-ndjson') &&
      (onRoute('ollama', probe.url) || /^\s*\{"model":"[^"]*","created_at":/.test(probe.head)),
  },
  ollamaJson: {
    id: 'ollama-json',
    format: 'ollama',
    framing: 'whole-body',
    detect: (probe) => isJson(probe) && onRoute('ollama', probe.url),
  },
  openWebUiHistory: {
    id: 'open-webui-history',
    format: 'open-webui',
    framing: 'whole-body',
    detect: (probe) => isJson(probe) && OPEN_WEBUI_CHAT_URL.test(probe.url),
  },
  /** Microsoft Copilot (WIRE-FORMATS-2.md §4.2, MED): the chat WebSocket's JSON frames. */
  copilotSocket: bySiteUrl('copilot', 'whole-body'),
  openWebUiSocket: {
    id: 'open-webui-socket',
    format: 'open-webui',
    framing: 'whole-body',
    detect: (probe) =>
      onRoute('open-webui-socket', probe.url) || onRoute('open-webui-socket-head', probe.head),
  },
  openWebUiCompletions: {
    id: 'open-webui-completions',
    format: 'open-webui',
    framing: 'sse',
    detect: (probe) => isEventStream(probe) && onRoute('open-webui-completions', probe.url),
  },
  openWebUiCompletionsJson: {
    id: 'open-webui-completions-json',
    format: 'open-webui',
    framing: 'whole-body',
    detect: (probe) => isJson(probe) && onRoute('open-webui-completions', probe.url),
  },
  openAiChatStream: {
    id: 'openai-chat-stream',
    format: 'openai-chat',
    framing: 'sse',
    detect: (probe) =>
      isEventStream(probe) &&
      (probe.head.includes('"chat.completion.chunk"') || onRoute('openai-chat', probe.url)),
  },
  openAiChatJson: {
    id: 'openai-chat-json',
    format: 'openai-chat',
    framing: 'whole-body',
    detect: (probe) => isJson(probe) && probe.head.includes('"chat.completion"'),
  },
  openAiResponsesStream: {
    id: 'openai-responses-stream',
    format: 'openai-responses',
    framing: 'sse',
    detect: (probe) =>
      isEventStream(probe) &&
      (/"type"\s*:\s*"response\.(?:created|in_progress|queued)"/.test(probe.head) ||
        onRoute('openai-responses', probe.url)),
  },
  openAiResponsesJson: {
    id: 'openai-responses-json',
    format: 'openai-responses',
    framing: 'whole-body',
    detect: (probe) => isJson(probe) && /"object"\s*:\s*"response"/.test(probe.head),
  },
  geminiWeb: {
    id: 'gemini-web',
    format: 'gemini-web',
    framing: 'length-prefixed',
    // The URL when the page hook knows it; otherwise (a bare capture) the body: StreamGenerate
    // answers carry rpc id null (`["wrb.fr",null,…`), `batchexecute` answers a named rpc id.
    detect: (probe) =>
      onRoute('gemini-web', probe.url) ||
      (!onRoute('gemini-batchexecute', probe.url) &&
        probe.head.startsWith(ANTI_HIJACK_PREFIX) &&
        /\[\s*"wrb\.fr"\s*,\s*null\s*,/.test(probe.head)),
  },
  /**
   * The fallback (DESIGN.md §3.5): the answer to a chat-shaped request whatever
   * its format, or a body whose head shows a known event shape. It reads known
   * shapes by structure and guards everything else as generic JSON / SSE /
   * NDJSON / text; a binary answer is reported and stopped. Media types are not
   * answers' text and stay the page's own.
   */
  generic: {
    id: 'generic',
    format: 'generic',
    framing: 'sniffed',
    detect: (probe) =>
      !MEDIA_TYPE.test(probe.contentType) &&
      (probe.chatRequest === true ||
        headShowsKnownShape(probe.head) ||
        // History loads whose body no document gives (site-routes.ts `history-unread`).
        (isJson(probe) && onRoute('history-unread', probe.url))),
  },
} satisfies Record<string, WireRecogniser>;

/**
 * The WebSocket formats (socket-answer-guard.ts): the WebSocket hook offers a
 * socket's URL and messages to these, in order.
 */
export const socketRecognisers: readonly WireRecogniser[] = [
  recognisers.openWebUiSocket,
  recognisers.copilotSocket,
];

/**
 * The HTTP response recognisers in detection order. The socket recognisers are
 * not among them: socket messages are not HTTP bodies (`socketRecognisers`).
 */
export const wireRecognisers: readonly WireRecogniser[] = [
  recognisers.chatgptWeb,
  recognisers.chatgptWebHistory,
  recognisers.deepseekWeb,
  recognisers.deepseekWebHistory,
  recognisers.claudeWebStream,
  recognisers.claudeWebHistory,
  recognisers.geminiWeb,
  recognisers.openWebUiCompletions,
  recognisers.openWebUiCompletionsJson,
  recognisers.openWebUiHistory,
  recognisers.libreChat,
  recognisers.libreChatHistory,
  recognisers.lobeChat,
  recognisers.grokWeb,
  recognisers.huggingChat,
  recognisers.leChat,
  recognisers.qwenChat,
  recognisers.zai,
  recognisers.chatglm,
  recognisers.perplexity,
  recognisers.kimiWeb,
  recognisers.kimiWebHistory,
  recognisers.doubaoWeb,
  recognisers.yuanbaoWeb,
  recognisers.qianwenWeb,
  recognisers.bigAgi,
  recognisers.aiSdkUiStream,
  recognisers.aiSdkDataStream,
  recognisers.aiSdkTextStream,
  recognisers.anthropicMessages,
  recognisers.openAiResponsesStream,
  recognisers.openAiChatStream,
  recognisers.geminiApiStream,
  recognisers.ollamaStream,
  recognisers.openAiResponsesJson,
  recognisers.openAiChatJson,
  recognisers.anthropicMessageJson,
  recognisers.geminiApiJson,
  recognisers.ollamaJson,
  recognisers.generic,
];

/** The first recogniser that claims the response, if any. */
export function recogniseResponse(probe: WireProbe): WireRecogniser | undefined {
  return wireRecognisers.find((recogniser) => recogniser.detect(probe));
}
