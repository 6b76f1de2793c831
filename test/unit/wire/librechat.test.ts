import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { libreChatHistory } from '../../../src/core/wire/adapters/librechat-history.ts';
import { libreChat } from '../../../src/core/wire/adapters/librechat.ts';
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
const secret = fixture('librechat/secret-split.sse');
const resume = fixture('librechat/resume.sse');
const benign = fixture('librechat/benign-legacy.sse');
const history = fixture('librechat/history.json');

type Part = { type: string; text?: string; think?: string };
type Json = Record<string, unknown>;

/**
 * Reads a body the way LibreChat's client does (WIRE-FORMATS.md §6.2, `useSSE.ts`
 * dispatch order): parsed with eventsource-parser, every `message` event's data
 * JSON.parse'd; `on_run_step` maps step ids to content indices, message and
 * reasoning deltas append to those parts, a resume `sync` replaces the content
 * with `aggregatedContent`, legacy `{message, text}` replaces the text, and the
 * `final` event's `responseMessage` is adopted as the answer.
 */
function readLibre(body: string) {
  const messages: Json[] = [];
  const parser = createParser({
    onEvent: (m) => {
      if ((m.event ?? 'message') === 'message') messages.push(JSON.parse(m.data) as Json);
    },
  });
  parser.feed(body);
  const steps = new Map<string, number>();
  let content: Part[] = [];
  let text = '';
  let final: Json | undefined;
  const seen: string[] = [];
  for (const data of messages) {
    if (data.final != null) {
      final = data.responseMessage as Json;
      content = (final.content as Part[] | undefined) ?? content;
      text = (final.text as string | undefined) ?? text;
    } else if (data.created != null) {
      continue;
    } else if (data.event != null) {
      const d = data.data as Json;
      if (data.event === 'on_run_step') steps.set(d.id as string, d.index as number);
      if (data.event === 'on_message_delta' || data.event === 'on_reasoning_delta') {
        const index = steps.get(d.id as string) as number;
        for (const part of (d.delta as { content: Part[] }).content) {
          const prev = content[index] ?? { type: part.type };
          if (part.type === 'text') prev.text = (prev.text ?? '') + part.text;
          if (part.type === 'think') prev.think = (prev.think ?? '') + part.think;
          content[index] = { ...prev };
        }
      }
    } else if (data.sync != null) {
      const state = data.resumeState as Json;
      for (const s of state.runSteps as Json[]) steps.set(s.id as string, s.index as number);
      content = (state.aggregatedContent as Part[]).map((p) => ({ ...p }));
    } else if (data.message != null) {
      text = data.text as string;
    }
    seen.push(JSON.stringify(content) + text);
  }
  const partText = (type: string) =>
    content
      .filter((p) => p.type === type)
      .map((p) => (type === 'think' ? p.think : p.text))
      .join('');
  return { messages, final, text: partText('text') || text, think: partText('think'), seen };
}

const blocking = blockingPack('github-pat');

describe('librechat adapter', () => {
  it('passes a stream without matches through byte for byte (legacy cumulative text, comments)', () => {
    const replay = wholeReplay(libreChat, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
    expect(readLibre(benign).text).toBe('Hello! How can I help you today? 😀 café');
  });

  it('guards on_message_delta text and thinking; the final echo carries the same guarded text', () => {
    const replay = wholeReplay(libreChat, pack, secret);
    const original = readLibre(secret);
    const guarded = readLibre(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.think).toBe(scanText(pack, original.think).output);
    expect(guarded.text).toContain('[redacted:github-pat]');
    expect(guarded.text).toContain('[image blocked: collector.example.net]');
    // What the page had streamed equals what the final event makes it adopt.
    const streamed = readLibre(replay.output.slice(0, replay.output.lastIndexOf('event: message')));
    expect(streamed.text).toBe(guarded.text);
    expect(streamed.think).toBe(guarded.think);
    // No redacted text anywhere in the body except the user's own message (kept as written).
    const created = guarded.messages[0] as { message: { text: string } };
    expect(created.message.text).toContain('ghp_EXAMPLEexampleEXAMPLEexample01234567');
    expect(guarded.final?.content).toBeDefined();
    expect(JSON.stringify(guarded.final?.content)).not.toMatch(
      /EXAMPLEexam|collector\.example\.net\/p/,
    );
    for (const m of guarded.messages.slice(1, -1)) {
      expect(JSON.stringify(m)).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    }
    // Same events in the same order, non-text fields intact.
    expect(guarded.messages.length).toBe(original.messages.length);
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['content:0:think', 'github-pat'],
      ['content:1:text', 'github-pat'],
      ['content:1:text', 'markdown-image-exfil'],
    ]);
    expect(replay.issues).toEqual([]);
  });

  it('a resumed subscription: the aggregatedContent snapshot and the deltas after it are guarded', () => {
    const replay = wholeReplay(libreChat, pack, resume);
    const original = readLibre(resume);
    const guarded = readLibre(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.think).toBe(scanText(pack, original.think).output);
    for (const state of guarded.seen)
      expect(state).not.toMatch(/ghp_|EXAMPLEexam|collector\.example\.net\/p/);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = wholeReplay(libreChat, pack, secret).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(libreChat, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a block ends with a final event carrying the shown text; the client reads it to a finished state', () => {
    const replay = replayBody(libreChat, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readLibre(replay.output);
    expect(read.final).toBeDefined();
    expect(read.think).toBe('The user pasted a token ');
    expect(read.text).toBe('');
    expect(read.final).toMatchObject({
      messageId: 'm-user-1_',
      parentMessageId: 'm-user-1',
      conversationId: 'c-1',
      unfinished: false,
    });
    // Only the person's own message (created, and requestMessage in the final) holds the token.
    for (const m of read.messages.slice(1)) {
      expect(JSON.stringify({ ...m, requestMessage: undefined })).not.toMatch(/ghp_E/);
    }
  });

  it('a block in the answer keeps the guarded text before it in the final event', () => {
    const blockImage = compilePack({
      name: 'block-image',
      version: '1',
      rules: [
        pack.rules.find((r) => r.id === 'github-pat')!.spec,
        { ...pack.rules.find((r) => r.id === 'markdown-image-exfil')!.spec, action: 'block' },
      ],
    });
    const read = readLibre(replayBody(libreChat, blockImage, [secret]).output);
    expect(read.text).toBe(
      'Sure — here is the token you pasted: [redacted:github-pat]. And a chart ',
    );
    expect(read.think).toBe('The user pasted a token [redacted:github-pat] and wants it back.');
  });

  it('history GET: the model messages are guarded in place, the user message is untouched', () => {
    const replay = wholeReplay(libreChatHistory, pack, history);
    const original = JSON.parse(history) as Json[];
    const guarded = JSON.parse(replay.output) as Json[];
    expect(guarded[0]).toEqual(original[0]);
    const parts = (m: Json | undefined) => m?.content as Part[];
    expect(parts(guarded[1])[1]?.text).toBe(
      scanText(pack, parts(original[1])[1]?.text ?? '').output,
    );
    expect(parts(guarded[1])[0]?.think).toBe(
      scanText(pack, parts(original[1])[0]?.think ?? '').output,
    );
    expect(parts(guarded[1])[2]).toEqual(parts(original[1])[2]);
    expect(guarded[2]?.text).toBe('Legacy answer: [image blocked: collector.example.net] ok');
    // Only the text values changed: the rest of the body is byte-identical.
    expect(replay.output.replace(/"(?:text|think)": "[^"]*"/g, '')).toBe(
      history.replace(/"(?:text|think)": "[^"]*"/g, ''),
    );
    const clean = history.replaceAll('![x](https://collector.example.net/p?d=abc)', 'x');
    expect(
      wholeReplay(libreChatHistory, getCorePack(), clean.replace(/ghp_EXAMPLE\w+/g, 'tok')).output,
    ).toBe(clean.replace(/ghp_EXAMPLE\w+/g, 'tok'));
  });

  it('history GET: any split of the wire bytes gives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(history);
    const expected = wholeReplay(libreChatHistory, pack, history).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(libreChatHistory, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('history GET blocked at the very start of a text still gives the page valid JSON', () => {
    const body = JSON.stringify([
      { messageId: 'a', isCreatedByUser: false, text: 'ghp_EXAMPLEexampleEXAMPLEexample01234567' },
    ]);
    const replay = replayBody(libreChatHistory, blocking, [body]);
    expect(replay.blocked).toBe(true);
    expect(JSON.parse(replay.output)).toEqual([
      { messageId: 'a', isCreatedByUser: false, text: '' },
    ]);
  });

  it('detects the stream and history routes', () => {
    const sse = 'text/event-stream';
    expect(
      libreChat.detect({
        url: 'https://lc.example/api/agents/chat/stream/c-1?resume=true',
        contentType: sse,
        head: '',
      }),
    ).toBe(true);
    expect(libreChat.detect({ url: '', contentType: sse, head: secret.slice(0, 1024) })).toBe(true);
    expect(
      libreChatHistory.detect({
        url: 'https://lc.example/api/messages/c-1',
        method: 'GET',
        contentType: 'application/json; charset=utf-8',
        head: history.slice(0, 1024),
      }),
    ).toBe(true);
  });
});
