/**
 * Microsoft Copilot's send (WIRE-FORMATS-2.md §4.2, MED): not an HTTP body but
 * a client frame on the chat WebSocket. The page first sends
 * `{"event":"setOptions",…}`, then for each message
 * `{"event":"send","conversationId","content":[{"type":"text","text":"<USER TEXT>"}],"mode"}`.
 * The person's text is each `text` part of a `send` frame's `content`; every other
 * frame carries none and leaves byte for byte. A frame that is not one JSON object
 * is not what §4.2 describes: `locate` throws, and the frame is refused (fail
 * closed, page/socket-send-queue.ts).
 */
import type { JsonPath } from '../json-string-span.ts';
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter, RequestText } from './request-text.ts';

function textPart(part: unknown, path: JsonPath): RequestText[] {
  if (!isRecord(part) || part.type !== 'text' || typeof part.text !== 'string') return [];
  return [{ path, text: part.text, part: 'new', role: 'user', message: 0 }];
}

export const copilotRequest: RequestAdapter = {
  ...requestRecognisers.copilotRequest,
  locate: (body) => {
    const frame: unknown = JSON.parse(body);
    if (!isRecord(frame)) throw new SyntaxError('socket frame is not a JSON object');
    if (frame.event !== 'send' || !Array.isArray(frame.content)) return [];
    return frame.content.flatMap((part: unknown, j) => textPart(part, ['content', j, 'text']));
  },
  rewrite: replaceStrings,
};
