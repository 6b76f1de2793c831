import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { lobeChat } from '../../../src/core/wire/adapters/lobechat.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import {
  blockingPack,
  fixture,
  splitBytes,
  throughTransform,
  wholeReplay,
} from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

const pack = getCorePack();
const benign = fixture('lobechat/benign.sse');
const secret = fixture('lobechat/secret-split.sse');

/**
 * Reads a body the way LobeChat's `fetchSSE` does (WIRE-FORMATS.md §6.3): every
 * event's data is JSON.parse'd (a parse error is a failure); `text` appends to the
 * answer, `reasoning` to the thinking, text `content_part`s join the answer.
 */
function readLobe(body: string) {
  const events: { event: string; data: unknown }[] = [];
  const parser = createParser({
    onEvent: (m) => events.push({ event: m.event ?? 'message', data: JSON.parse(m.data) }),
  });
  parser.feed(body);
  let text = '';
  let thinking = '';
  for (const { event, data } of events) {
    if (event === 'text' && typeof data === 'string') text += data;
    if (event === 'reasoning' && typeof data === 'string') thinking += data;
    if (event === 'content_part' || event === 'reasoning_part') {
      const part = data as { content: string; partType: string; inReasoning?: boolean };
      if (part.partType !== 'text') continue;
      if (event === 'reasoning_part' || part.inReasoning === true) thinking += part.content;
      else text += part.content;
    }
  }
  return { events, text, thinking, stop: events.at(-1)?.event === 'stop' };
}

describe('lobechat adapter', () => {
  it('passes a stream without matches through byte for byte (\\u escapes, astral, tool calls)', () => {
    const replay = wholeReplay(lobeChat, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
  });

  it('redacts a secret split across text events and an exfil image; reasoning is its own channel', () => {
    const replay = wholeReplay(lobeChat, pack, secret);
    const original = readLobe(secret);
    const guarded = readLobe(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.thinking).toBe(scanText(pack, original.thinking).output);
    expect(guarded.text).toContain('[redacted:github-pat]');
    expect(guarded.text).toContain('[image blocked: collector.example.net]');
    expect(guarded.thinking).toContain('[redacted:github-pat]');
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    // Same events in the same order; non-text events are identical.
    expect(guarded.events.map((e) => e.event)).toEqual(original.events.map((e) => e.event));
    const nonText = (r: typeof original) =>
      r.events.filter((e) => !['text', 'reasoning', 'content_part'].includes(e.event));
    expect(nonText(guarded)).toEqual(nonText(original));
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['reasoning', 'github-pat'],
      ['text', 'github-pat'],
      ['text', 'markdown-image-exfil'],
    ]);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = wholeReplay(lobeChat, pack, secret).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(lobeChat, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a block ends the answer with `event: stop` and the client reads it to the end', () => {
    const blocking = blockingPack('github-pat');
    const replay = replayBody(lobeChat, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readLobe(replay.output);
    expect(read.thinking).toBe('The user pasted a token ');
    expect(read.text).toBe('');
    expect(read.stop).toBe(true);
    expect(read.events.at(-1)?.data).toBe('content_filter');
    expect(
      replay.output.endsWith('id: chatcmpl-EXAMPLE7\nevent: stop\ndata: "content_filter"\n\n'),
    ).toBe(true);
  });

  it('reports unknown events and passes them through', () => {
    const body = 'id: x\nevent: brand_new\ndata: {"a":1}\n\nid: x\nevent: stop\ndata: "stop"\n\n';
    const replay = wholeReplay(lobeChat, pack, body);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'lobechat: event brand_new' },
    ]);
  });

  it('detects /webapi/chat/{provider} and a bare capture by its events', () => {
    const probe = { url: '', contentType: 'text/event-stream', head: secret.slice(0, 1024) };
    expect(lobeChat.detect(probe)).toBe(true);
    expect(
      lobeChat.detect({
        url: 'https://lobe.example/webapi/chat/openai',
        contentType: '',
        head: '',
      }),
    ).toBe(true);
    expect(
      lobeChat.detect({
        url: 'https://api.example/v1/chat/completions',
        contentType: 'text/event-stream',
        head: 'data: {"object":"chat.completion.chunk"}\n\n',
      }),
    ).toBe(false);
  });
});
