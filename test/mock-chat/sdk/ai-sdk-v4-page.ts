/**
 * A page on the AI SDK 4 client (issue 20 §4): `callChatApi` of
 * @ai-sdk/ui-utils 1.2.11, the code under v4 `useChat` (WIRE-FORMATS-2.md
 * §1.6), reading the data stream from `/api/ai-sdk/v4` with the page's fetch.
 */
import { callChatApi } from '@ai-sdk/ui-utils';
import { mountAiSdkPage } from './ai-sdk-shell.ts';

let ids = 0;

mountAiSdkPage('ai-v4', async (prompt, show) => {
  // callChatApi reports a client error by rejecting (an `3:` part, a bad line, a failed fetch).
  await callChatApi({
    api: `/api/ai-sdk/v4${location.search}`,
    body: { messages: [{ role: 'user', content: prompt }] },
    streamProtocol: 'data',
    credentials: undefined,
    headers: undefined,
    abortController: undefined,
    restoreMessagesOnFailure: () => {},
    onResponse: undefined,
    onUpdate: ({ message }) => show(message.content),
    onFinish: (message) => show(message.content),
    onToolCall: undefined,
    generateId: () => `v4-${++ids}`,
    fetch: undefined,
    lastMessage: undefined,
  });
});
