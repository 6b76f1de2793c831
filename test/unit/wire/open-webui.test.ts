import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { openWebUiHistory } from '../../../src/core/wire/adapters/open-webui-history.ts';
import {
  OpenWebUiSocketGuard,
  openWebUiSocket,
  readSocketMessage,
} from '../../../src/core/wire/adapters/open-webui-socket.ts';
import {
  openWebUiCompletions,
  openWebUiCompletionsJson,
} from '../../../src/core/wire/adapters/open-webui.ts';
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
const socketSecret = fixture('open-webui/socket-secret.txt').split('\n').filter(Boolean);
const socketBenign = fixture('open-webui/socket-benign.txt').split('\n').filter(Boolean);
const fallback = fixture('open-webui/completions-fallback.sse');
const chatJson = fixture('open-webui/chat.json');
const TOKEN = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
const LEAK = /ghp_|EXAMPLEexam|collector\.example\.net\/[pqz]/;

const blocking = blockingPack('github-pat');

type Json = Record<string, unknown>;

/**
 * Applies socket messages the way Open WebUI's Chat.svelte does (WIRE-FORMATS.md
 * §6.1: `chatEventHandler` / `chatCompletionEventHandler`): per message id,
 * `chat:completion` `choices[0].delta.content` appends, `content` replaces, `done`
 * finishes; `chat:message:delta`/`message` append; `chat:message`/`replace` replace.
 * Every intermediate content is recorded (what the page showed at some point).
 */
function applySocket(messages: readonly string[]) {
  const content = new Map<string, string>();
  const done = new Set<string>();
  const shown: string[] = [];
  for (const text of messages) {
    const m = readSocketMessage(text);
    if (m === null || (m.eventName !== 'events' && m.eventName !== 'chat-events')) continue;
    const id = m.payload.message_id as string;
    const { type, data } = m.payload.data as { type: string; data: Json };
    const current = content.get(id) ?? '';
    if (type === 'chat:completion') {
      const choices = data.choices as { delta?: { content?: string } }[] | undefined;
      if (choices) content.set(id, current + (choices[0]?.delta?.content ?? ''));
      if (typeof data.content === 'string' && data.content !== '') content.set(id, data.content);
      if (data.done === true) done.add(id);
    } else if (type === 'chat:message:delta' || type === 'message') {
      content.set(id, current + (data.content as string));
    } else if (type === 'chat:message' || type === 'replace') {
      content.set(id, data.content as string);
    }
    shown.push(content.get(id) ?? '');
  }
  return { content, done, shown };
}

/** What each message's text is in the original socket stream (the guard's expected input). */
function guardSocket(messages: readonly string[], p = pack) {
  const guard = new OpenWebUiSocketGuard(p);
  const delivered: string[] = [];
  for (const m of messages) delivered.push(...guard.push(m));
  delivered.push(...guard.end());
  return delivered;
}

describe('open-webui socket events', () => {
  it('passes a session without matches through message for message, byte for byte', () => {
    expect(guardSocket(socketBenign)).toEqual(socketBenign);
    for (const m of socketBenign) expect(wholeReplay(openWebUiSocket, pack, m).output).toBe(m);
  });

  it('guards cumulative content, choices deltas and message deltas; the page ends on guarded text', () => {
    const delivered = guardSocket(socketSecret);
    expect(delivered.length).toBe(socketSecret.length);
    const original = applySocket(socketSecret);
    const guarded = applySocket(delivered);
    for (const id of ['msg-a', 'msg-b']) {
      expect(guarded.content.get(id)).toBe(scanText(pack, original.content.get(id) ?? '').output);
    }
    // msg-c: deltas, then a replace whose text does not extend them (guarded afresh).
    expect(guarded.content.get('msg-c')).toBe(
      scanText(pack, original.content.get('msg-c') ?? '').output,
    );
    expect(guarded.content.get('msg-a')).toContain('[redacted:github-pat]');
    expect(guarded.content.get('msg-a')).toContain('[image blocked: collector.example.net]');
    expect(guarded.done).toEqual(original.done);
    // No state the page went through ever showed the token, a fragment of it, or the image URL.
    for (const s of guarded.shown) expect(s).not.toMatch(LEAK);
    // Non-chat packets (open, connect, ping, pong) are untouched and in place.
    for (const [i, m] of socketSecret.entries()) {
      if (!m.startsWith('42')) expect(delivered[i]).toBe(m);
    }
  });

  it('holds a message while its end could still be a secret, and releases it in order', () => {
    const guard = new OpenWebUiSocketGuard(pack);
    const [open, connect, status, c0, ping, c1, c2, sources, pong, c3] = socketSecret;
    expect(guard.push(open!)).toEqual([open]);
    expect(guard.push(connect!)).toEqual([connect]);
    expect(guard.push(status!)).toEqual([status]);
    expect(guard.push(c0!)).toEqual([c0]);
    expect(guard.push(ping!)).toEqual([ping]);
    // "…: ghp_EXAMPLEexam" could be the start of a token: held.
    expect(guard.push(c1!)).toEqual([]);
    // The next snapshot completes the token: c1 goes out showing the redaction; c2 ends in
    // an unfinished image link (`![x](https://collector…?d=`) and is held in its turn.
    const out = guard.push(c2!);
    expect(out.length).toBe(1);
    expect(out[0]).toContain('[redacted:github-pat]');
    expect(out[0]).not.toMatch(/ghp_|EXAMPLEexam/);
    // Whatever arrives behind a held message waits too: order is kept.
    expect(guard.push(sources!)).toEqual([]);
    expect(guard.push(pong!)).toEqual([]);
    const rest = guard.push(c3!);
    expect(rest.length).toBe(4);
    expect(rest[1]).toBe(sources);
    expect(rest[2]).toBe(pong);
    for (const m of rest) expect(m).not.toMatch(LEAK);
  });

  it('one message adapter: a single chat event is guarded in place (whole-body framing)', () => {
    const message = socketSecret.find((m) => m.includes('"done":true') && m.includes('msg-a'))!;
    const out = wholeReplay(openWebUiSocket, pack, message).output;
    const content = (readSocketMessage(out)?.payload.data as { data: { content: string } }).data
      .content;
    expect(content).toBe(
      scanText(
        pack,
        (readSocketMessage(message)?.payload.data as { data: { content: string } }).data.content,
      ).output,
    );
    expect(out.startsWith('42["events",{"chat_id":"chat-1","message_id":"msg-a"')).toBe(true);
  });

  it('a block ends that answer with a done event carrying the shown text; other chats go on', () => {
    const delivered = guardSocket(socketSecret, blocking);
    const read = applySocket(delivered);
    expect(read.content.get('msg-a')).toBe('Sure — here is the token you pasted: ');
    expect(read.done.has('msg-a')).toBe(true);
    // Nothing about msg-a after its ending.
    const ending = delivered.findIndex(
      (m) => m.includes('"message_id":"msg-a"') && m.includes('"done":true'),
    );
    expect(delivered.slice(ending + 1).some((m) => m.includes('"message_id":"msg-a"'))).toBe(false);
    expect(delivered[ending]).toBe(
      '42["events",{"chat_id":"chat-1","message_id":"msg-a","data":{"type":"chat:completion","data":{"done":true,"content":"Sure — here is the token you pasted: "}}}]',
    );
    // msg-b is blocked in its turn; msg-c's token is blocked too; everything ends `done`.
    expect(read.done).toEqual(new Set(['msg-a', 'msg-b', 'msg-c']));
    for (const s of read.shown) expect(s).not.toContain('ghp_E');
    expect(read.content.get('msg-b')).toBe('Your key is sk-proj-EXAMPLE? no: ');
    // msg-c's `replace` is guarded afresh and blocked where the token starts.
    expect(read.content.get('msg-c')).toBe('Replaced with ');
  });

  it('reports unknown event types and passes them through', () => {
    const m =
      '42["events",{"chat_id":"c","message_id":"m","data":{"type":"chat:brand_new","data":{}}}]';
    const replay = wholeReplay(openWebUiSocket, pack, m);
    expect(replay.output).toBe(m);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'open-webui: event type chat:brand_new' },
    ]);
  });

  it('guards the OpenResponses-style output items and response:completion events of newer servers', () => {
    const output = [
      { type: 'reasoning', summary: [{ type: 'summary_text', text: `I see ${TOKEN}` }] },
      {
        type: 'message',
        content: [{ type: 'output_text', text: 'x ![z](https://collector.example.net/z?d=1)' }],
      },
    ];
    const m1 = `42["events",${JSON.stringify({ chat_id: 'c', message_id: 'm', data: { type: 'chat:completion', data: { output, done: true } } })}]`;
    const out = guardSocket([m1]);
    expect(out[0]).not.toMatch(LEAK);
    expect(out[0]).toContain('[redacted:github-pat]');
    const delta = (d: string) =>
      `42["events",${JSON.stringify({ chat_id: 'c', message_id: 'n', data: { type: 'response:completion', data: { type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: d } } })}]`;
    const done = `42["events",${JSON.stringify({ chat_id: 'c', message_id: 'n', data: { type: 'response:completion', data: { type: 'response.output_text.done', output_index: 0, content_index: 0, text: `key ${TOKEN}` } } })}]`;
    const streamed = guardSocket([
      delta('key ghp_EXAMPLE'),
      delta('exampleEXAMPLEexample01234567'),
      done,
    ]);
    expect(streamed.join('')).not.toMatch(LEAK);
    expect(streamed[2]).toContain('key [redacted:github-pat]');
  });
});

describe('open-webui SSE fallback (no socket): the openai-chat format', () => {
  /** The Open WebUI page's `createOpenAITextStream`: eventsource lines, `choices[0].delta.content`. */
  function readFallback(body: string) {
    let text = '';
    const chunks: Json[] = [];
    const parser = createParser({
      onEvent: (m) => {
        if (m.data === '[DONE]') return;
        const json = JSON.parse(m.data) as Json;
        chunks.push(json);
        const choices = json.choices as { delta?: { content?: string }; finish_reason?: string }[];
        text += choices?.[0]?.delta?.content ?? '';
      },
    });
    parser.feed(body);
    return { text, chunks, done: body.endsWith('data: [DONE]\n\n') };
  }

  it('guards the deltas; Open WebUI extras (sources, usage) pass without being reported', () => {
    const replay = wholeReplay(openWebUiCompletions, pack, fallback);
    const original = readFallback(fallback);
    const guarded = readFallback(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.text).toContain('[redacted:github-pat]');
    expect(replay.output).not.toMatch(LEAK);
    expect(guarded.chunks.length).toBe(original.chunks.length);
    expect(replay.issues).toEqual([]);
    const clean = fallback
      .replace('ghp_EXAMPLEexam', 'just text ')
      .replace('![x](https://collector.example.net/p?d=', '(');
    expect(wholeReplay(openWebUiCompletions, pack, clean).output).toBe(clean);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(fallback);
    const expected = wholeReplay(openWebUiCompletions, pack, fallback).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(openWebUiCompletions, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a block ends as OpenAI ends a filtered answer', () => {
    const replay = replayBody(openWebUiCompletions, blocking, [fallback]);
    const read = readFallback(replay.output);
    expect(read.text).toBe('Sure — here is the token you pasted: ');
    expect(read.done).toBe(true);
    expect(JSON.stringify(read.chunks.at(-1))).toContain('"finish_reason":"content_filter"');
  });

  it('detects the route; the socket-mode JSON answer passes through', () => {
    const url = 'https://owui.example/api/chat/completions';
    expect(openWebUiCompletions.detect({ url, contentType: 'text/event-stream', head: '' })).toBe(
      true,
    );
    expect(
      openWebUiCompletionsJson.detect({ url, contentType: 'application/json', head: '' }),
    ).toBe(true);
    const body = '{"status":true,"task_id":"7c1d0d5e-EXAMPLE"}';
    const replay = wholeReplay(openWebUiCompletionsJson, pack, body);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([]);
  });
});

describe('open-webui chat GET (history)', () => {
  it('guards assistant messages in chat.messages and chat.history; user messages untouched', () => {
    const replay = wholeReplay(openWebUiHistory, pack, chatJson);
    const original = JSON.parse(chatJson) as {
      chat: { messages: Json[]; history: { messages: Record<string, Json> } };
    };
    const guarded = JSON.parse(replay.output) as typeof original;
    const expected = scanText(pack, original.chat.messages[1]?.content as string).output;
    expect(guarded.chat.messages[1]?.content).toBe(expected);
    expect(guarded.chat.history.messages['a-1']?.content).toBe(expected);
    expect(guarded.chat.messages[0]).toEqual(original.chat.messages[0]);
    expect(guarded.chat.history.messages['u-1']).toEqual(original.chat.history.messages['u-1']);
    expect(JSON.stringify(guarded.chat.history.messages['a-2'])).not.toMatch(LEAK);
    expect(JSON.stringify(guarded.chat.history.messages['a-2'])).toContain('[redacted:github-pat]');
    // Only text values changed.
    const strip = (s: string) => s.replace(/"(?:content|text)":\s*"(?:[^"\\]|\\.)*"/g, '');
    expect(strip(replay.output)).toBe(strip(chatJson));
  });

  it('any split of the wire bytes gives the single-chunk result', async () => {
    const bytes = new TextEncoder().encode(chatJson);
    const expected = wholeReplay(openWebUiHistory, pack, chatJson).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(24), async (cuts) => {
        const out = await throughTransform(openWebUiHistory, pack, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a chat without matches is byte-identical; a block at a text start still gives valid JSON', () => {
    const clean = chatJson
      .replaceAll(TOKEN, 'a token')
      .replaceAll(/!\[\w\]\(https:\/\/collector\.example\.net\/\w\?d=\w+\)/g, 'an image');
    expect(wholeReplay(openWebUiHistory, pack, clean).output).toBe(clean);
    const body = JSON.stringify({
      chat: { messages: [{ id: 'a', role: 'assistant', content: TOKEN }] },
    });
    expect(JSON.parse(replayBody(openWebUiHistory, blocking, [body]).output)).toEqual({
      chat: { messages: [{ id: 'a', role: 'assistant', content: '' }] },
    });
  });

  it('detects a chat by id, not the chat list', () => {
    const probe = (url: string) => ({ url, contentType: 'application/json', head: '' });
    expect(
      openWebUiHistory.detect(
        probe('https://owui.example/api/v1/chats/6f1d2c3b-1a2b-4c5d-8e9f-0123456789ab'),
      ),
    ).toBe(true);
    expect(
      openWebUiHistory.detect(
        probe('https://owui.example/api/v1/chats/share/6f1d2c3b-1a2b-4c5d-8e9f-0123456789ab'),
      ),
    ).toBe(true);
    expect(openWebUiHistory.detect(probe('https://owui.example/api/v1/chats/?page=1'))).toBe(false);
    expect(openWebUiHistory.detect(probe('https://owui.example/api/v1/chats/all/tags'))).toBe(
      false,
    );
  });
});
