/**
 * The same page on ai@5.0.216 (issue 20 §4), the last release whose chunk
 * schemas are strict (WIRE-FORMATS-2.md §1.5 rule 1): a field the guard added
 * to any chunk would fail the whole stream here.
 */
import { AbstractChat, DefaultChatTransport, type UIMessage } from 'ai-v5-strict';
import { mountAiSdkPage, observedChatState, textOf } from './ai-sdk-shell.ts';

mountAiSdkPage('ai-v5', async (prompt, show, fail) => {
  const state = observedChatState<UIMessage>((messages) => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') show(textOf(last));
  });
  const chat = new (class extends AbstractChat<UIMessage> {})({
    state,
    transport: new DefaultChatTransport({ api: `/api/ai-sdk/v5${location.search}` }),
    onError: fail,
  });
  await chat.sendMessage({ text: prompt });
});
