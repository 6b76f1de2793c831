/**
 * A chat page built on the official `@anthropic-ai/sdk` browser client (bundled
 * by demo-routes.ts): the SDK's MessageStream parses the guarded stream.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mountSdkChat } from './sdk-chat.ts';

const client = new Anthropic({
  apiKey: 'mock-key-not-secret',
  baseURL: `${location.origin}/demo`,
  dangerouslyAllowBrowser: true,
  maxRetries: 0,
});

mountSdkChat('anthropic', async (prompt, onText) => {
  const stream = client.messages.stream({
    model: 'mock-claude',
    max_tokens: 1024,
    messages: [{ role: 'user', content: prompt }],
  });
  stream.on('text', onText);
  await stream.finalMessage();
});
