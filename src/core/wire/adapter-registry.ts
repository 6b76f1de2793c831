/**
 * Every wire adapter, in detection order (most specific first), and the
 * lookup by probe or by name. A response no adapter recognises is reported as
 * unguarded by the caller, never treated as safe.
 */
import { anthropicMessages } from './adapters/anthropic-messages.ts';
import { openAiChatJson, openAiChatStream } from './adapters/openai-chat.ts';
import type { WireAdapter, WireFormat, WireProbe } from './wire-event.ts';

export const wireAdapters: readonly WireAdapter[] = [
  anthropicMessages,
  openAiChatStream,
  openAiChatJson,
];

export function detectAdapter(probe: WireProbe): WireAdapter | undefined {
  return wireAdapters.find((adapter) => adapter.detect(probe));
}

/** The streaming adapter for a format named on the command line (`csg replay --format`). */
export function adapterByFormat(format: WireFormat): WireAdapter | undefined {
  return (
    wireAdapters.find((a) => a.format === format && a.framing !== 'whole-body') ??
    wireAdapters.find((a) => a.format === format)
  );
}
