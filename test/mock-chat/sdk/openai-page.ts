/**
 * A chat page built on the official `openai` browser client (bundled for the
 * browser by demo-routes.ts): the SDK's own SSE parser reads the guarded stream,
 * so the extension must hand it a valid Chat Completions stream.
 */
import OpenAI from 'openai';
import { mountSdkChat } from './sdk-chat.ts';

const client = new OpenAI({
  apiKey: 'mock-key-not-secret',
  baseURL: `${location.origin}/demo/v1`,
  dangerouslyAllowBrowser: true,
  maxRetries: 0,
});

mountSdkChat('openai', async (prompt, onText) => {
  const stream = await client.chat.completions.create({
    model: 'mock-gpt',
    stream: true,
    messages: [{ role: 'user', content: prompt }],
  });
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta?.content;
    if (delta) onText(delta);
  }
});
