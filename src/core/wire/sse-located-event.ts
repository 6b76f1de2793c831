/**
 * The SSE counterpart of located-text.ts `locatedJsonEvent`: a frame whose
 * `data:` JSON holds the located strings, re-rendered by replacing just those
 * literals (sse-json-render.ts keeps every other byte), or passed through when
 * it holds none. Shared by the chat-site adapters of issue 20 (Z.ai, ChatGLM,
 * Perplexity) so each is its own `locate`.
 */
import type { LocatedText } from './located-text.ts';
import type { RawFrame } from './raw-frame.ts';
import { renderSseJson } from './sse-json-render.ts';
import { type WireEvent, passThrough } from './wire-event.ts';

export function sseLocatedEvent(frame: RawFrame, located: readonly LocatedText[]): WireEvent {
  if (located.length === 0) return passThrough(frame);
  return {
    frame,
    slots: located.map((l) => l.slot),
    render: (texts) =>
      renderSseJson(
        frame,
        located.map((l, i) => ({ path: l.path, value: texts[i] as string })),
      ),
  };
}
