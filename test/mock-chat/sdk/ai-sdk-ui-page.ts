/**
 * A page on ai@6's own client (issue 20 §4): `AbstractChat`, the class under
 * `useChat`, with its `DefaultChatTransport` POSTing to `/api/ai-sdk/ui` and
 * reading the UI message stream (WIRE-FORMATS-2.md §1.3).
 */
import { AbstractChat, DefaultChatTransport, type UIMessage } from 'ai';
import { mountAiSdkPage, observedChatState, textOf } from './ai-sdk-shell.ts';

mountAiSdkPage('ai-ui', async (prompt, show, fail) => {
  const state = observedChatState<UIMessage>((messages) => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') show(textOf(last));
  });
  const chat = new (class extends AbstractChat<UIMessage> {})({
    state,
    transport: new DefaultChatTransport({ api: `/api/ai-sdk/ui${location.search}` }),
    onError: fail,
  });
  await chat.sendMessage({ text: prompt });
});
