/**
 * Every wire adapter, in the detection order of wire-recognisers.ts
 * (site-specific adapters, matched by URL, before the API formats whose event
 * shapes they reuse: claude.ai streams look like Anthropic Messages; streams
 * before whole bodies), and last the generic adapter, which reads what the
 * others do not claim by its structure (adapters/structural.ts). A response no
 * adapter recognises is reported as unguarded by the caller, never treated as
 * safe. WebSocket messages (Open WebUI's Socket.IO events, Copilot's frames)
 * are not HTTP bodies: their formats (`socketFormatById`) run in the shared
 * socket guard (socket-answer-guard.ts).
 */
import { aiSdkDataStream } from './adapters/ai-sdk-data-stream.ts';
import { aiSdkTextStream } from './adapters/ai-sdk-text-stream.ts';
import { aiSdkUiStream } from './adapters/ai-sdk-ui-stream.ts';
import { anthropicMessageJson } from './adapters/anthropic-message-json.ts';
import { anthropicMessages } from './adapters/anthropic-messages.ts';
import { chatgptWeb } from './adapters/chatgpt-web.ts';
import { chatgptWebHistory } from './adapters/chatgpt-web-history.ts';
import { claudeWebHistory, claudeWebStream } from './adapters/claude-web.ts';
import { deepseekWeb } from './adapters/deepseek-web.ts';
import { deepseekWebHistory } from './adapters/deepseek-web-history.ts';
import { geminiApiJson, geminiApiStream } from './adapters/gemini-api.ts';
import { geminiWeb } from './adapters/gemini-web.ts';
import { grokWeb } from './adapters/grok-web.ts';
import { huggingChat } from './adapters/huggingchat.ts';
import { leChat } from './adapters/le-chat.ts';
import { qwenChat } from './adapters/qwen-chat.ts';
import { zai } from './adapters/zai.ts';
import { chatglm } from './adapters/chatglm.ts';
import { perplexity } from './adapters/perplexity.ts';
import { kimiWeb } from './adapters/kimi-web.ts';
import { kimiWebHistory } from './adapters/kimi-web-history.ts';
import { doubaoWeb } from './adapters/doubao-web.ts';
import { yuanbaoWeb } from './adapters/yuanbao-web.ts';
import { qianwenWeb } from './adapters/qianwen-web.ts';
import { bigAgi } from './adapters/big-agi.ts';
import { libreChat } from './adapters/librechat.ts';
import { libreChatHistory } from './adapters/librechat-history.ts';
import { lobeChat } from './adapters/lobechat.ts';
import { openWebUiCompletions, openWebUiCompletionsJson } from './adapters/open-webui.ts';
import { openWebUiHistory } from './adapters/open-webui-history.ts';
import { ollamaJson, ollamaStream } from './adapters/ollama.ts';
import { openAiChatJson, openAiChatStream } from './adapters/openai-chat.ts';
import { openAiResponsesJson, openAiResponsesStream } from './adapters/openai-responses.ts';
import { openWebUiSocket, openWebUiSocketFormat } from './adapters/open-webui-socket.ts';
import { copilotSocket, copilotSocketFormat } from './adapters/copilot-socket.ts';
import type { SocketFormat } from './socket-answer-guard.ts';
import { genericAdapter } from './adapters/structural.ts';
import type { WireAdapter, WireFormat, WireProbe } from './wire-event.ts';
import { wireRecognisers } from './wire-recognisers.ts';

const adapters: readonly WireAdapter[] = [
  chatgptWeb,
  chatgptWebHistory,
  deepseekWeb,
  deepseekWebHistory,
  claudeWebStream,
  claudeWebHistory,
  geminiWeb,
  openWebUiCompletions,
  openWebUiCompletionsJson,
  openWebUiHistory,
  libreChat,
  libreChatHistory,
  lobeChat,
  grokWeb,
  huggingChat,
  leChat,
  qwenChat,
  zai,
  chatglm,
  perplexity,
  kimiWeb,
  kimiWebHistory,
  doubaoWeb,
  yuanbaoWeb,
  qianwenWeb,
  bigAgi,
  aiSdkUiStream,
  aiSdkDataStream,
  aiSdkTextStream,
  anthropicMessages,
  openAiResponsesStream,
  openAiChatStream,
  geminiApiStream,
  ollamaStream,
  openAiResponsesJson,
  openAiChatJson,
  anthropicMessageJson,
  geminiApiJson,
  ollamaJson,
  genericAdapter,
];

const byId = new Map<string, WireAdapter>(
  [...adapters, openWebUiSocket, copilotSocket].map((adapter) => [adapter.id, adapter]),
);

/** The adapter of a recogniser (wire-recognisers.ts), by its id; undefined for an unknown id. */
export function adapterById(id: string): WireAdapter | undefined {
  return byId.get(id);
}

/** Every HTTP adapter, in the recognisers' detection order. */
export const wireAdapters: readonly WireAdapter[] = wireRecognisers.map((recogniser) => {
  const adapter = byId.get(recogniser.id);
  if (adapter === undefined) throw new Error(`no adapter for recogniser ${recogniser.id}`);
  return adapter;
});

export function detectAdapter(probe: WireProbe): WireAdapter | undefined {
  return wireAdapters.find((adapter) => adapter.detect(probe));
}

/** The streaming adapter for a format named on the command line (`csg replay --format`). */
export function adapterByFormat(format: WireFormat): WireAdapter | undefined {
  return (
    wireAdapters.find((a) => a.format === format && a.framing !== 'whole-body') ??
    wireAdapters.find((a) => a.format === format)
  );
}

const socketFormats = new Map<string, SocketFormat>(
  [openWebUiSocketFormat, copilotSocketFormat].map((format) => [format.adapter.id, format]),
);

/** The WebSocket format of a socket recogniser (`socketRecognisers`), by its id. */
export function socketFormatById(id: string): SocketFormat | undefined {
  return socketFormats.get(id);
}
