import { Stream } from '@anthropic-ai/sdk/streaming';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { anthropicMessageJson } from '../../../src/core/wire/adapters/anthropic-message-json.ts';
import { claudeWebHistory, claudeWebStream } from '../../../src/core/wire/adapters/claude-web.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import type { WireAdapter } from '../../../src/core/wire/wire-event.ts';
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
const benign = fixture('claude-web/messages-benign.sse');
const messages = fixture('claude-web/messages-secret-split.sse');
const legacy = fixture('claude-web/completion-secret-split.sse');
const history = fixture('claude-web/history.json');
const TOKEN = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
const IMAGE = '![x](https://collector.example.net/p?d=abc)';
const blocking = blockingPack('github-pat');

interface ClaudeEvent {
  type: string;
  index?: number;
  delta?: { type?: string; text?: string; stop_reason?: string };
  completion?: string;
  stop_reason?: string | null;
}

/** The messages dialect read by the official Anthropic SDK's stream reader. */
async function readWithSdk(body: string) {
  const stream = Stream.fromSSEResponse<ClaudeEvent>(sseResponse(body), new AbortController());
  const events: ClaudeEvent[] = [];
  for await (const event of stream) events.push(event);
  const textOf = (index: number) =>
    events
      .map((e) =>
        e.type === 'content_block_delta' && e.index === index && e.delta?.type === 'text_delta'
          ? (e.delta.text ?? '')
          : '',
      )
      .join('');
  return { events, textOf };
}

/** The legacy dialect read with eventsource-parser, as a page's own reader would. */
function readLegacy(body: string) {
  const events: ClaudeEvent[] = [];
  createParser({ onEvent: (e) => events.push(JSON.parse(e.data) as ClaudeEvent) }).feed(body);
  return { events, text: events.map((e) => e.completion ?? '').join('') };
}

async function splitProperty(adapter: WireAdapter, body: string) {
  const bytes = new TextEncoder().encode(body);
  const expected = wholeReplay(adapter, pack, body).output;
  await fc.assert(
    fc.asyncProperty(cutFractions(24), async (cuts) => {
      const out = await throughTransform(adapter, pack, splitBytes(bytes, cuts));
      expect(new TextDecoder().decode(out)).toBe(expected);
    }),
    { numRuns: 200 },
  );
}

describe('claude-web stream adapter, messages dialect', () => {
  it('passes a stream without matches through byte for byte; message_limit is not reported', () => {
    const replay = wholeReplay(claudeWebStream, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
  });

  it('guards text blocks; thinking, tool input and Claude.ai events unchanged; the SDK reads it', async () => {
    const replay = wholeReplay(claudeWebStream, pack, messages);
    expect(replay.issues).toEqual([]);
    const original = await readWithSdk(messages);
    const guarded = await readWithSdk(replay.output);
    expect(guarded.textOf(2)).toBe(scanText(pack, original.textOf(2)).output);
    expect(guarded.textOf(2)).toContain('[redacted:github-pat]');
    expect(guarded.textOf(2)).toContain('[image blocked: collector.example.net]');
    expect(guarded.events.length).toBe(original.events.length);
    const untouched = (r: typeof original) =>
      r.events.filter((e) => !(e.type === 'content_block_delta' && e.index === 2));
    expect(untouched(guarded)).toEqual(untouched(original));
    expect(replay.events.map((e) => e.channel)).toEqual(['block:2', 'block:2']);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    await splitProperty(claudeWebStream, messages);
  });

  it('a block ends like a refusal and the SDK finishes cleanly', async () => {
    const replay = replayBody(claudeWebStream, blocking, [messages]);
    expect(replay.blocked).toBe(true);
    const read = await readWithSdk(replay.output);
    expect(read.textOf(2)).toBe('Here it is: ');
    expect(read.events.map((e) => e.type).slice(-3)).toEqual([
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(read.events.at(-2)?.delta?.stop_reason).toBe('refusal');
  });
});

describe('claude-web stream adapter, legacy completion dialect', () => {
  it('guards `completion` increments; other fields and the ping comment unchanged', () => {
    const replay = wholeReplay(claudeWebStream, pack, legacy);
    const original = readLegacy(legacy);
    const guarded = readLegacy(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.text).toContain('[redacted:github-pat]');
    expect(guarded.text).toContain('[image blocked: collector.example.net]');
    const strip = (e: ClaudeEvent) => ({ ...e, completion: undefined });
    expect(guarded.events.map(strip)).toEqual(original.events.map(strip));
    expect(replay.output).toContain(': ping\n\n');
    expect(replay.issues).toEqual([]);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    await splitProperty(claudeWebStream, legacy);
  });

  it('a block ends with one more completion event shaped like the stream, stop_reason set', () => {
    const replay = replayBody(claudeWebStream, blocking, [legacy]);
    expect(replay.blocked).toBe(true);
    const read = readLegacy(replay.output);
    expect(read.text).toBe(' Here it is: ');
    expect(read.events.at(-1)).toEqual({
      type: 'completion',
      completion: '',
      stop_reason: 'refusal',
      model: 'claude-sonnet-4-5-20250929',
      log_id: 'EXAMPLElog01',
      messageLimit: { type: 'within_limit' },
    });
    expect(read.events.filter((e) => e.stop_reason !== null)).toHaveLength(1);
    expect(replay.output.endsWith('\n\n')).toBe(true);
  });
});

describe('claude-web history (GET …/chat_conversations/{id}?tree=True)', () => {
  const guardedTexts = (body: string) =>
    (
      JSON.parse(body) as {
        chat_messages: {
          sender: string;
          text: string;
          content?: { type: string; text?: string }[];
        }[];
      }
    ).chat_messages.map((m) => ({
      sender: m.sender,
      text: m.text,
      content: (m.content ?? []).map((c) => c.text ?? null),
    }));

  it('a conversation without matches passes byte for byte', () => {
    const clean = history.replaceAll(TOKEN, 'a-token').replace(IMAGE, 'an image');
    expect(wholeReplay(claudeWebHistory, pack, clean).output).toBe(clean);
  });

  it('assistant texts are guarded like the live stream; the user’s own message is untouched', () => {
    const out = wholeReplay(claudeWebHistory, pack, history).output;
    const before = guardedTexts(history);
    const after = guardedTexts(out);
    expect(after[0]).toEqual(before[0]);
    expect(after[2]).toEqual(before[2]);
    expect(after[1]?.content[1]).toBe(scanText(pack, before[1]?.content[1] ?? '').output);
    expect(after[1]?.content[0]).toBe(null);
    expect(after[3]?.text).toBe(scanText(pack, before[3]?.text ?? '').output);
    expect(after[3]?.text).toContain('[redacted:github-pat]');
    // Only the two assistant text literals changed.
    expect(out.replace(/"text":"[^"]*\[redacted:github-pat\][^"]*"/g, '')).toBe(
      history.replace(/"text":"(?:Here it is|Legacy reply)[^"]*"/g, ''),
    );
  });

  it('the reloaded text equals what the live stream showed for the same answer', async () => {
    const live = await readWithSdk(wholeReplay(claudeWebStream, pack, messages).output);
    const reloaded = guardedTexts(wholeReplay(claudeWebHistory, pack, history).output);
    expect(reloaded[1]?.content[1]).toBe(live.textOf(2));
  });

  it('citations past a redaction collapse to an empty range', () => {
    const cited = history.replace(
      /("text":"Here it is[^"]*","citations":)\[\]/,
      '$1[{"uuid":"c1","start_index":3,"end_index":5},{"uuid":"c2","start_index":60,"end_index":70}]',
    );
    const out = JSON.parse(wholeReplay(claudeWebHistory, pack, cited).output);
    expect(out.chat_messages[1].content[1].citations).toEqual([
      { uuid: 'c1', start_index: 3, end_index: 5 },
      { uuid: 'c2', start_index: 12, end_index: 12 },
    ]);
  });

  it('a block at the very start of a message still gives a loadable thread', () => {
    // Only the last message holds the token, at its very start: nothing of it can be released.
    const early = history
      .replace(`Here it is: ${TOKEN}`, 'Here it is')
      .replace('Legacy reply with ', '');
    const replay = replayBody(claudeWebHistory, blocking, [early]);
    expect(replay.blocked).toBe(true);
    const texts = guardedTexts(replay.output);
    // Fail closed: every assistant text is emptied; the user's own message stays as sent.
    expect(texts[1]?.content[1]).toBe('');
    expect(texts[3]?.text).toBe('');
    expect(texts[0]).toEqual(guardedTexts(early)[0]);
  });

  it('detects the stream and the history by URL', () => {
    const base = 'https://claude.ai/api/organizations/org-1/chat_conversations/conv-1';
    expect(
      claudeWebStream.detect({
        url: `${base}/completion`,
        contentType: 'text/event-stream',
        head: '',
      }),
    ).toBe(true);
    expect(
      claudeWebStream.detect({
        url: `${base}/retry_completion`,
        contentType: 'text/event-stream',
        head: '',
      }),
    ).toBe(true);
    const json = {
      url: `${base}?tree=True&rendering_mode=messages`,
      contentType: 'application/json',
      head: '{',
    };
    expect(claudeWebHistory.detect(json)).toBe(true);
    expect(claudeWebHistory.detect({ ...json, url: `${base}/completion_status?poll=false` })).toBe(
      false,
    );
    expect(claudeWebStream.detect(json)).toBe(false);
    expect(anthropicMessageJson.detect(json)).toBe(false);
  });
});

describe('anthropic non-streaming JSON adapter', () => {
  const body = JSON.stringify(
    {
      id: 'msg_EXAMPLE',
      type: 'message',
      role: 'assistant',
      model: 'claude-example',
      content: [
        { type: 'thinking', thinking: 'user pasted ghp_', signature: 'EXAMPLEsig==' },
        { type: 'text', text: `Here it is: ${TOKEN} and ${IMAGE}` },
        { type: 'tool_use', id: 'toolu_EXAMPLE', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 25, output_tokens: 40 },
    },
    null,
    2,
  );
  const probe = {
    url: 'https://api.anthropic.com/v1/messages',
    contentType: 'application/json',
    head: body.slice(0, 1024),
  };

  it('detects a message body and guards its text blocks in place', () => {
    expect(anthropicMessageJson.detect(probe)).toBe(true);
    const responsesBody =
      '{"id":"resp_1","object":"response","output":[{"type":"message","role":"assistant"}]}';
    expect(
      anthropicMessageJson.detect({
        ...probe,
        url: 'https://proxy.example/x',
        head: responsesBody,
      }),
    ).toBe(false);
    const out = wholeReplay(anthropicMessageJson, pack, body).output;
    expect(out).toBe(
      body
        .replace(TOKEN, '[redacted:github-pat]')
        .replace(IMAGE, '[image blocked: collector.example.net]'),
    );
    const clean = body.replace(TOKEN, 'x').replace(IMAGE, 'y');
    expect(wholeReplay(anthropicMessageJson, pack, clean).output).toBe(clean);
  });

  it('a block before any text empties the text and sets stop_reason "refusal"', () => {
    const replay = replayBody(anthropicMessageJson, blocking, [body.replace('Here it is: ', '')]);
    expect(replay.blocked).toBe(true);
    const out = JSON.parse(replay.output);
    expect(out.stop_reason).toBe('refusal');
    expect(out.content[1].text).toBe('');
    expect(out.content[2]).toEqual({
      type: 'tool_use',
      id: 'toolu_EXAMPLE',
      name: 'get_weather',
      input: { city: 'Paris' },
    });
  });
});
