/**
 * Open WebUI's HTTP answer to `POST /api/chat/completions` (WIRE-FORMATS.md §6.1).
 *
 * In the normal UI case the answer is `{"status": true, "task_id": …}` and the
 * text arrives on the Socket.IO `events` / `chat-events` channel (see
 * `open-webui-socket.ts`). When the socket is not connected (no `session_id`)
 * the POST returns the OpenAI Chat Completions SSE itself — that fallback IS
 * the `openai-chat` format (§7.1: `choices[].delta.content`, `[DONE]`), so this
 * adapter is the `openai-chat` session under the `open-webui` name. The only
 * difference is Open WebUI's own chunks without `choices` (`{"sources": […]}`,
 * `{"selected_model_id": …}`, `{"usage": …}`), which are known here and so not
 * reported as unrecognised. A block ends as OpenAI ends a filtered answer
 * (`finish_reason: "content_filter"`, then `[DONE]`).
 */
import { recognisers } from '../wire-recognisers.ts';
import { isRecord, sseJson } from '../sse-json-render.ts';
import type { AdapterSession, WireAdapter } from '../wire-event.ts';
import { openAiChatJson, openAiChatStream } from './openai-chat.ts';

/** Top-level keys of Open WebUI's own chunks that carry no answer text. */
const OPEN_WEBUI_EXTRAS = new Set([
  'sources',
  'citations',
  'selected_model_id',
  'usage',
  'error',
  'title',
  'done',
  'status',
  'task_id',
]);

function completionsSession(): AdapterSession {
  const inner = openAiChatStream.open();
  return {
    ...inner,
    decode(frame) {
      const event = inner.decode(frame);
      if (event.unrecognised !== undefined) {
        const json = sseJson(frame);
        if (isRecord(json) && Object.keys(json).every((k) => OPEN_WEBUI_EXTRAS.has(k))) {
          delete event.unrecognised;
        }
      }
      return event;
    },
  };
}

/** The SSE fallback: the openai-chat adapter on Open WebUI's completions route. */
export const openWebUiCompletions: WireAdapter = {
  ...recognisers.openWebUiCompletions,
  open: completionsSession,
};

/**
 * The JSON answer on the same route: `{status, task_id}` (text follows on the
 * socket; nothing to guard here) or a `stream: false` completion
 * (`choices[].message.content`, guarded like openai-chat's).
 */
export const openWebUiCompletionsJson: WireAdapter = {
  ...recognisers.openWebUiCompletionsJson,
  open: () => openAiChatJson.open(),
};
