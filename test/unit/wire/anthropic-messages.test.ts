import fc from 'fast-check';
import { Stream } from '@anthropic-ai/sdk/streaming';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { anthropicMessages } from '../../../src/core/wire/adapters/anthropic-messages.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import {
  blockingPack,
  fixture,
  splitBytes,
  sseResponse,
  throughTransform,
  wholeReplay,
} from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

const pack = getCorePack();
const secret = fixture('anthropic/secret-split.sse');
const benign = fixture('anthropic/benign.sse');

async function readWithSdk(body: string) {
  const stream = Stream.fromSSEResponse<RawMessageStreamEvent>(
    sseResponse(body),
    new AbortController(),
  );
  const events: RawMessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const textOf = (index: number) =>
    events
      .map((e) =>
        e.type === 'content_block_delta' && e.index === index && e.delta.type === 'text_delta'
          ? e.delta.text
          : '',
      )
      .join('');
  return { events, textOf };
}

describe('anthropic messages adapter', () => {
  it('passes a stream without matches through byte for byte', () => {
    expect(wholeReplay(anthropicMessages, pack, benign).output).toBe(benign);
  });

  it('guards text blocks; thinking and signature deltas pass untouched; the SDK reads it', async () => {
    const replay = wholeReplay(anthropicMessages, pack, secret);
    const original = await readWithSdk(secret);
    const guarded = await readWithSdk(replay.output);
    expect(guarded.events.length).toBe(original.events.length);
    expect(guarded.textOf(1)).toBe(scanText(pack, original.textOf(1)).output);
    expect(guarded.textOf(1)).toContain('[redacted:github-pat]');
    expect(guarded.textOf(1)).toContain('[image blocked: collector.example.net]');
    const thinking = (r: typeof original) =>
      r.events.filter((e) => e.type === 'content_block_delta' && e.index === 0);
    expect(thinking(guarded)).toEqual(thinking(original));
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['block:1', 'github-pat'],
      ['block:1', 'markdown-image-exfil'],
    ]);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = wholeReplay(anthropicMessages, pack, secret).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(anthropicMessages, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('a block ends like a refusal: the open block stops, stop_reason "refusal", message_stop', async () => {
    const blocking = blockingPack('github-pat');
    const replay = replayBody(anthropicMessages, blocking, [secret]);
    const read = await readWithSdk(replay.output);
    expect(read.textOf(1)).toBe('Here it is: ');
    expect(read.events.map((e) => e.type).slice(-3)).toEqual([
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const delta = read.events.at(-2);
    expect(delta?.type === 'message_delta' && delta.delta.stop_reason).toBe('refusal');
  });
});
