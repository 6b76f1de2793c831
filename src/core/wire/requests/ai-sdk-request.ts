/**
 * Vercel AI SDK request bodies (WIRE-FORMATS-2.md §1.2), recognised by their
 * shape because the SDK has no fixed host or path (§1.1: `api` is any URL):
 *
 * - SDK 5/6/7 `useChat`: `{id, messages: [{id, role, parts: […]}], trigger, …}`,
 *   no `content` in a message; user text at `parts[type=text].text`;
 * - SDK 3/4 `useChat`: `{id, messages: [{role, content, parts?}], …}`; `content`
 *   holds the full text and, since 4.2, `parts` repeat it: both are located so
 *   both are rewritten;
 * - `useCompletion` (all versions): `{prompt, …}` on `/api/completion`.
 *
 * Full history is sent by default (§1.2), assistant text included: the last
 * user message is the new one, the rest history.
 */
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import { aiSdkMessageTexts } from './message-list-requests.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter, RequestText } from './request-text.ts';

function parseObject(body: string): Record<string, unknown> {
  const json: unknown = JSON.parse(body);
  if (!isRecord(json)) throw new SyntaxError('request body is not a JSON object');
  return json;
}

export const aiSdkRequest: RequestAdapter = {
  ...requestRecognisers.aiSdkRequest,
  locate: (body) => {
    const json = parseObject(body);
    const prompt: RequestText[] =
      typeof json.prompt === 'string'
        ? [{ path: ['prompt'], text: json.prompt, part: 'new', role: 'user', message: 0 }]
        : [];
    return [...prompt, ...aiSdkMessageTexts(json.messages)];
  },
  rewrite: (body, edits) => replaceStrings(body, edits),
};
