/**
 * Anthropic Messages non-streaming answers (WIRE-FORMATS.md §7.3 with
 * `stream: false`): one `{"type":"message","content":[…]}` body. Each `text`
 * block is an echo slot on `block:<index>`, the channel name the streaming
 * adapter uses; thinking, tool_use and every other byte stay as sent. A block
 * before any text could be released gives the same message with its text
 * emptied and `stop_reason: "refusal"`.
 */
import { recognisers } from '../wire-recognisers.ts';
import { isRecord } from '../sse-json-render.ts';
import { type LocatedText, locatedJsonEvent } from '../located-text.ts';
import { type WireAdapter, passThrough } from '../wire-event.ts';
import { setJsonPath } from './json-structural-edit.ts';

type Located = LocatedText;

function messageSlots(json: Record<string, unknown>): Located[] {
  if (!Array.isArray(json.content)) return [];
  const found: Located[] = [];
  json.content.forEach((block: unknown, j: number) => {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return;
    found.push({
      slot: { channel: `block:${j}`, mode: 'echo', text: block.text },
      path: ['content', j, 'text'],
    });
  });
  return found;
}

export const anthropicMessageJson: WireAdapter = {
  ...recognisers.anthropicMessageJson,
  open: () => {
    let pending: { json: Record<string, unknown>; located: Located[]; raw: string } | undefined;
    let emitted = false;
    return {
      decode(frame) {
        let json: unknown;
        try {
          json = JSON.parse(frame.payload ?? '');
        } catch {
          return passThrough(frame, 'anthropic: body is not JSON');
        }
        if (!isRecord(json) || json.type !== 'message') {
          return passThrough(frame, 'anthropic: body is not a message');
        }
        const located = messageSlots(json);
        pending = { json, located, raw: frame.raw };
        return locatedJsonEvent(frame, located);
      },
      emitted() {
        emitted = true;
      },
      blockEnding() {
        if (emitted || pending === undefined) return '';
        const copy = structuredClone(pending.json);
        for (const l of pending.located) setJsonPath(copy, l.path, '');
        copy.stop_reason = 'refusal';
        return JSON.stringify(copy, null, /^\{\r?\n([ \t]+)"/.exec(pending.raw)?.[1]);
      },
    };
  },
};
