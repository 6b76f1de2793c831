/**
 * The mock chat's scripted answers as Open WebUI streams them over its Socket.IO
 * WebSocket (WIRE-FORMATS.md §6.1): the Engine.IO open packet, the Socket.IO connect
 * packet, then one `42["events",{chat_id, message_id, data:{type:"chat:completion",
 * data:{choices:[{delta:{content}}]}}}]` message per text delta, and a last
 * `{done: true, content: <whole text>}` event.
 */

import type { ScriptedAnswer } from './scripted-answers.ts';
import { textDeltas } from './wire-answers.ts';

const CHAT_ID = 'chat-mock-1';
const MESSAGE_ID = 'msg-mock-1';

function chatEvent(data: Record<string, unknown>): string {
  const payload = {
    chat_id: CHAT_ID,
    message_id: MESSAGE_ID,
    data: { type: 'chat:completion', data },
  };
  return `42${JSON.stringify(['events', payload])}`;
}

/** Every socket message, in order, for one answer. */
export function openWebUiSocketMessages(answer: ScriptedAnswer): string[] {
  return [
    '0{"sid":"mock-sid","upgrades":[],"pingInterval":25000,"pingTimeout":20000}',
    '40{"sid":"mock-socket"}',
    ...textDeltas(answer.text).map((content) => chatEvent({ choices: [{ delta: { content } }] })),
    chatEvent({ done: true, content: answer.text }),
  ];
}

/** The answer text a page assembles from the messages it received (deltas, or `done`). */
export function textOfSocketMessages(messages: readonly string[]): string {
  let text = '';
  for (const message of messages) {
    if (!message.startsWith('42')) continue;
    const [, payload] = JSON.parse(message.slice(2)) as [string, { data: { data: unknown } }];
    const data = payload.data.data as {
      choices?: { delta?: { content?: string } }[];
      done?: boolean;
      content?: string;
    };
    if (data.done === true && typeof data.content === 'string') return data.content;
    text += data.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}
