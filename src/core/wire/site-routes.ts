/**
 * The URL routes of chat sites and APIs (and a few site-specific body heads), as DATA: regular-expression sources by
 * name (WIRE-FORMATS.md, WIRE-FORMATS-2.md, per site). The recognisers
 * (wire-recognisers.ts, requests/request-recognisers.ts) look them up by name
 * through site-route-table.ts, never as literals of their own.
 *
 * Why data: the MAIN-world script must stay small (test/e2e/build-output.test.ts),
 * and each new site used to add its routes to it as code. The page's build links
 * src/page/page-site-routes.ts in place of site-route-table.ts (vite.config.ts), and
 * the ISOLATED bridge hands these sources over the private page channel as its
 * first message (`site-routes`, src/protocol/page-channel.ts), so the page's code
 * holds no per-site URL and does not grow with the list of sites.
 *
 * Plain sources without flags: each is compiled once with `new RegExp(source)`.
 */
export const SITE_ROUTES = {
  /** ChatGPT web: the conversation stream routes (WIRE-FORMATS.md §1). */
  'chatgpt-stream': String.raw`\/backend-(?:api|anon|alt)\/(?:(?:f\/)?conversation(?:\/resume)?|feed\/(?:card\/[^/?#]+|feedback)\/conversation)(?:[?#]|$)`,
  /** A ChatGPT conversation document (the thread the page loads to render it). */
  'chatgpt-history': String.raw`\/backend-(?:api|anon|alt)\/conversation\/[0-9A-Za-z-]{8,}(?:[?#]|$)`,
  /** ChatGPT's send routes. */
  'chatgpt-send': String.raw`\/backend-(?:api|anon|alt)\/(?:f\/)?conversation(?:\/prepare)?(?:[?#]|$)|\/f\/steer_turn(?:[?#]|$)`,
  /** DeepSeek's streaming completion routes. */
  'deepseek-stream': String.raw`\/api\/v0\/chat\/(?:completion|edit_message|regenerate|continue|resume_stream)(?:[?#]|$)`,
  /** DeepSeek's history load. */
  'deepseek-history': String.raw`\/api\/v0\/chat\/history_messages(?:[?#]|$)`,
  /** DeepSeek's send routes. */
  'deepseek-send': String.raw`\/api\/v0\/chat\/(?:completion|edit_message|regenerate|continue)(?:[?#]|$)`,
  /** claude.ai's completion stream (and its retry), under the organisation. */
  'claude-stream': String.raw`\/api\/organizations\/[^/]+\/chat_conversations\/[^/?#]+\/(?:retry_)?completion(?:[?#]|$)`,
  /** claude.ai's conversation document. */
  'claude-history': String.raw`\/api\/organizations\/[^/]+\/chat_conversations\/[^/?#]+(?:[?#]|$)`,
  /** claude.ai's send routes. */
  'claude-send': String.raw`\/api\/organizations\/[^/]+\/chat_conversations\/[^/]+\/(?:retry_)?completion(?:[?#]|$)`,
  /** LibreChat stream routes: the v0.8.6+ subscription, and the POST that is the stream (v0.8.0). */
  'librechat-stream': String.raw`\/api\/(?:agents\/chat\/stream\/[^/?#]+|agents\/chat(?:\/[^/?#]+)?|ask\/[^/?#]+|edit\/[^/?#]+|assistants\/v\d\/chat)(?:[?#]|$)`,
  /** LibreChat's history load. */
  'librechat-history': String.raw`\/api\/messages\/[^/?#]+(?:[?#]|$)`,
  /** LibreChat's send routes. */
  'librechat-send': String.raw`\/api\/(?:agents\/chat|ask|edit)(?:\/[\w-]+)?(?:[?#]|$)`,
  /** LobeChat's chat route. */
  lobechat: String.raw`\/webapi\/chat\/[^/?#]+(?:[?#]|$)`,
  /** xAI Grok web (WIRE-FORMATS-2.md §4.3): NDJSON answers to the conversation routes. */
  'grok-web': String.raw`\/app-chat\/conversations\/(?:new|.+\/responses|reconnect-response)`,
  /**
   * HuggingChat (chat-ui, §4.6): the JSONL answer to a conversation POST, its SSE reattach,
   * and the conversation document (`/api/conversation/{id}`, and `/api/v2/conversations/{id}`
   * that chat-ui's current page reads: adapters/huggingchat-history.ts).
   */
  huggingchat: String.raw`\/(?:conversation|api\/v2\/conversations)\/[0-9a-f]{24}(?:\/stream)?\/?(?:[?#]|$)`,
  /**
   * History loads whose path the document gives but not the body: Grok's `load-responses`
   * (§4.3, MED), Qianwen's `/api/v2/conversation/…` (§3.2, LOW, a prefix), Doubao's
   * `/im/chain/single` (§3.3, body not read). Their JSON answers go to the generic adapter
   * (docs/chat-sites.md, "History loads").
   */
  'history-unread': String.raw`\/rest\/app-chat\/conversations\/[^/?#]+\/load-responses(?:[?#]|$)|qianwen\.com\/api\/v2\/conversation\/|doubao\.com\/im\/chain\/single(?:[?#]|$)`,
  /** Mistral Le Chat (§4.4, LOW): the `N:json` line answer to `/api/chat`. */
  'le-chat': String.raw`chat\.mistral\.ai\/api\/chat(?:[?#]|$)`,
  /** Qwen Chat (§3.1, MED): before OpenAI chat, whose URL shape it shares. */
  'qwen-chat': String.raw`chat\.qwen\.ai\/api\/v2\/chat\/completions`,
  /**
   * Z.ai (§3.5, MED): Open WebUI's v2 route; on another host (a mock, a mirror) known by
   * the signature parameters its page adds to the URL.
   */
  zai: String.raw`chat\.z\.ai\/api\/v2\/chat\/completions|\/api\/v2\/chat\/completions\?(?:[^#]*&)?signature_timestamp=`,
  /** Z.ai's chat creation (§3.5): `POST /api/v1/chats/new` carries the first message. */
  'zai-chats-new': String.raw`chat\.z\.ai\/api\/v1\/chats\/new(?:[?#]|$)`,
  /** Zhipu ChatGLM (§3.5, MED): the assistant stream, cumulative per part. */
  chatglm: String.raw`\/chatglm\/backend-api\/assistant\/stream(?:[?#]|$)`,
  /** Perplexity (§4.1, MED): the ask stream of diff-block patches. */
  perplexity: String.raw`\/rest\/sse\/perplexity_ask(?:[?#]|$)`,
  /** Kimi (§2, MED): Connect envelopes. */
  'kimi-web': String.raw`\/apiv2\/kimi\.gateway\.chat\.v1\.ChatService\/Chat(?:[?#]|$)`,
  /** Kimi's history load (§2.1). */
  'kimi-web-history': String.raw`\/kimi\.gateway\.chat\.v1\.ChatService\/ListMessages(?:[?#]|$)`,
  /** Doubao (§3.3, MED): `/chat/completion?aid=…` (DeepSeek's route has no app id). */
  'doubao-web': String.raw`\/chat\/completion\?(?:[^#]*&)?aid=\d`,
  /** Tencent Yuanbao (§3.4, MED). */
  'yuanbao-web': String.raw`yuanbao\.tencent\.com\/api\/chat\/[^/?#]+(?:[?#]|$)`,
  /** Qianwen (§3.2, LOW): the current `chat2.qianwen.com` SSE, by path and its `biz_id`. */
  'qianwen-web': String.raw`\/api\/v2\/chat\?(?:[^#]*&)?biz_id=ai_qwen`,
  /** big-AGI v2 (§4.7, HIGH): its server's tRPC JSON-lines answer, on any host (self-hosted). */
  'big-agi': String.raw`\/api\/(?:edge|cloud)\/aix\.chatGenerateContent(?:[?#]|$)`,
  /** big-AGI's send: tRPC puts the procedure path in the URL; a batch joins several with commas. */
  'big-agi-send': String.raw`\/(?:[\w.]+,)*aix\.chatGenerateContent(?:,[\w.]+)*(?:[?#]|$)`,
  /** Microsoft Copilot (§4.2, MED): the chat WebSocket. */
  copilot: String.raw`\/c\/api\/chat\?(?:[^#]*&)?api-version=`,
  /** Gemini web: the answer stream and its send (WIRE-FORMATS.md). */
  'gemini-web': String.raw`\/StreamGenerate(?:[?#]|$)`,
  /** Gemini web's other RPCs, which answer a named rpc id (not a chat answer). */
  'gemini-batchexecute': String.raw`\/batchexecute(?:[?#]|$)`,
  /** ChatGPT, a capture without its URL: the v1 preamble, or an old-format envelope first (§1.3, §1.5). */
  'chatgpt-head': String.raw`(?:^|\n)event: ?delta_encoding\r?\n|(?:^|\n)data: ?\{"message": ?\{"id": ?"[^"]*", ?"author": ?\{`,
  /** Open WebUI's completion route (SSE, or JSON for `stream: false`). */
  'open-webui-completions': String.raw`\/api\/chat\/completions(?:[?#]|$)`,
  /** Open WebUI's Socket.IO route, and a Socket.IO event message of its chat events. */
  'open-webui-socket': String.raw`\/ws\/socket\.io\/`,
  'open-webui-socket-head': String.raw`^42(?:\/[^,[]*,)?\d*\["(?:chat-)?events",`,
  // The API formats' own routes (their servers and the proxies that keep their paths).
  /** Anthropic Messages (answer and send). */
  'anthropic-messages': String.raw`\/v1\/messages(?:[?#]|$)`,
  /** Gemini API: the SSE stream, and the JSON answer of either method. */
  'gemini-api-stream': String.raw`:streamGenerateContent\?(?:[^#]*&)?alt=sse`,
  'gemini-api-json': String.raw`\/models\/[^/:]+:(?:stream)?[gG]enerateContent(?:[?#]|$)`,
  'gemini-api-send': String.raw`:(?:stream)?[gG]enerateContent(?:[?#]|$)`,
  /** Ollama's chat and generate routes (answer and send). */
  ollama: String.raw`\/api\/(?:chat|generate)(?:[?#]|$)`,
  /** OpenAI chat completions: the answer, and the sends (LobeChat's and proxies' routes too). */
  'openai-chat': String.raw`\/chat\/completions\/?(?:$|[?#])`,
  'openai-chat-send': String.raw`\/chat\/completions(?:[?#]|$)|\/webapi\/chat\/[\w-]+(?:[?#]|$)|\/api\/openai\/v1\/chat`,
  /** OpenAI Responses: the answer, and the send. */
  'openai-responses': String.raw`\/responses(?:[?#]|$)`,
  'openai-responses-send': String.raw`\/v1\/responses(?:[?#]|$)`,
  /** The AI SDK's `useCompletion` default route (WIRE-FORMATS-2.md §1.1). */
  'ai-sdk-completion': String.raw`\/api\/completion(?:[?#]|$)`,
} satisfies Record<string, string>;

/** The name of a site route. */
export type SiteRouteName = keyof typeof SITE_ROUTES;
