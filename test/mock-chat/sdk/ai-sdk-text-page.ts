/**
 * A page on ai@6's text stream client (issue 20 §4, WIRE-FORMATS-2.md §1.7):
 * `AbstractChat` with `TextStreamChatTransport`, the answer as plain text.
 */
import { AbstractChat, TextStreamChatTransport, type UIMessage } from 'ai';
import { mountAiSdkPage, observedChatState, textOf } from './ai-sdk-shell.ts';

mountAiSdkPage('ai-text', async (prompt, show, fail) => {
  const state = observedChatState<UIMessage>((messages) => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') show(textOf(last));
  });
  const chat = new (class extends AbstractChat<UIMessage> {})({
    state,
    transport: new TextStreamChatTransport({ api: `/api/ai-sdk/text${location.search}` }),
    onError: fail,
  });
  await chat.sendMessage({ text: prompt });
});
