import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { chatgptWeb } from '../../../src/core/wire/adapters/chatgpt-web.ts';
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
const benign = fixture('chatgpt-web/benign.sse');
const secret = fixture('chatgpt-web/secret-split.sse');
const legacy = fixture('chatgpt-web/legacy-cumulative.sse');
const TOKEN = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';
const CITE = '\ue200cite\ue202turn0search1\ue201';

const blocking = blockingPack('github-pat');

// ---------------------------------------------------------------------------
// Reference decoder: reads the SSE with eventsource-parser and applies the
// delta_encoding v1 ops (WIRE-FORMATS.md §1.4) and the old whole-envelope
// frames (§1.5) the way the page does, independently of the adapter.
// ---------------------------------------------------------------------------

type Json = Record<string, unknown>;

interface PageState {
  envelopes: Map<string, Json>;
  order: string[];
  events: { event: string | undefined; data: string }[];
  typed: Json[];
  complete: boolean;
  done: boolean;
  /** Old format: every text the page was shown for each message, in order. */
  snapshots: Map<string, string[]>;
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function pointer(path: string): string[] {
  return path === '' ? [] : path.split('/').slice(1);
}

function applyOp(root: Json, path: string, op: string, value: unknown): void {
  if (op === 'patch') {
    for (const sub of value as Json[]) {
      applyOp(root, path + (sub.p as string), (sub.o as string | undefined) ?? 'append', sub.v);
    }
    return;
  }
  const keys = pointer(path);
  const last = keys.pop();
  let target: Record<string, unknown> | unknown[] = root;
  for (const key of keys) {
    const next = (target as Record<string, unknown>)[key];
    if (typeof next !== 'object' || next === null) (target as Record<string, unknown>)[key] = {};
    target = (target as Record<string, unknown>)[key] as Record<string, unknown>;
  }
  if (last === undefined) return;
  const t = target as Record<string, unknown>;
  const current = t[last];
  if (op === 'append') {
    if (typeof current === 'string') t[last] = current + (value as string);
    else if (Array.isArray(current)) current.push(value);
    else if (isObj(current) && isObj(value)) Object.assign(current, value);
    else t[last] = value;
  } else if (op === 'replace' || op === 'add') t[last] = value;
  else if (op === 'truncate') t[last] = (current as string).slice(0, value as number);
  else if (op === 'remove') delete t[last];
  else throw new Error(`unknown op ${op}`);
}

function readPage(body: string): PageState {
  const state: PageState = {
    envelopes: new Map(),
    order: [],
    events: [],
    typed: [],
    complete: false,
    done: false,
    snapshots: new Map(),
  };
  let current: Json | undefined;
  let lastP: string | undefined;
  let lastO: string | undefined;
  const open = (envelope: Json) => {
    const id = (envelope.message as Json).id as string;
    if (!state.envelopes.has(id)) state.order.push(id);
    state.envelopes.set(id, envelope);
    current = envelope;
  };
  const parser = createParser({
    onEvent(e) {
      state.events.push({ event: e.event, data: e.data });
      if (e.data === '[DONE]') {
        state.done = true;
        return;
      }
      const data = JSON.parse(e.data) as unknown;
      if (e.event === 'delta_encoding' || !isObj(data)) return;
      if (typeof data.type === 'string' && e.event !== 'delta') {
        state.typed.push(data);
        if (data.type === 'message_stream_complete') state.complete = true;
        return;
      }
      if (isObj(data.message) && !('v' in data)) {
        open(structuredClone(data));
        const id = data.message.id as string;
        const list = state.snapshots.get(id) ?? [];
        list.push(((data.message.content as Json).parts as string[])[0] as string);
        state.snapshots.set(id, list);
        return;
      }
      let p = data.p as string | undefined;
      let o = data.o as string | undefined;
      if (p === undefined && o === undefined) {
        p = lastP;
        o = lastO;
      } else {
        p ??= o === 'patch' || o === 'add' ? '' : lastP;
        o ??= 'append';
      }
      lastP = p;
      lastO = o;
      if (p === '' && (o === 'add' || o === 'replace') && isObj(data.v)) {
        open(structuredClone(data.v));
        return;
      }
      if (current === undefined) throw new Error('op before any message');
      applyOp(current, p as string, o as string, data.v);
    },
  });
  parser.feed(body);
  return state;
}

function isVisible(envelope: Json): boolean {
  const m = envelope.message as Json;
  const metadata = (m.metadata ?? {}) as Json;
  return (
    (m.author as Json).role === 'assistant' &&
    (m.recipient ?? 'all') === 'all' &&
    metadata.is_visually_hidden_from_conversation !== true &&
    (m.content as Json).content_type === 'text'
  );
}

const textOf = (envelope: Json) => ((envelope.message as Json).content as Json).parts as string[];

function visibleTexts(state: PageState): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of state.order) {
    const envelope = state.envelopes.get(id)!;
    if (isVisible(envelope)) out.set(id, textOf(envelope)[0]!);
  }
  return out;
}

/** The page state with the visible texts and their offsets masked: what must not change. */
function masked(state: PageState): unknown {
  return state.order.map((id) => {
    const envelope = structuredClone(state.envelopes.get(id)!);
    if (isVisible(envelope)) {
      textOf(envelope)[0] = '<text>';
      const metadata = (envelope.message as Json).metadata as Json;
      for (const ref of (metadata.content_references ?? []) as Json[]) {
        ref.start_idx = ref.end_idx = 0;
      }
      for (const ref of (metadata.citations ?? []) as Json[]) ref.start_ix = ref.end_ix = 0;
    }
    return envelope;
  });
}

const codePointSlice = (text: string, a: number, b: number) =>
  Array.from(text).slice(a, b).join('');

// ---------------------------------------------------------------------------

describe('chatgpt-web adapter (delta_encoding v1)', () => {
  it('passes a stream without matches through byte for byte (hidden messages, markers, trailing spaces, comments)', () => {
    const replay = wholeReplay(chatgptWeb, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
    const page = readPage(benign);
    expect(page.complete && page.done).toBe(true);
    expect([...visibleTexts(page).values()]).toEqual([
      'The release adds streaming exports \ue200cite\ue202turn0search3\ue201 and fixes 数据 ✓ 😀. Done.',
    ]);
  });

  it('guards only the visible answer: the secret split over a continuation, the image, a marker split over frames', () => {
    const replay = wholeReplay(chatgptWeb, pack, secret);
    expect(replay.issues).toEqual([]);
    const original = readPage(secret);
    const guarded = readPage(replay.output);

    // Same events, same names, same order (the resume offset counts them, §1.8).
    expect(guarded.events.map((e) => e.event)).toEqual(original.events.map((e) => e.event));
    expect(guarded.typed).toEqual(original.typed);

    const before = visibleTexts(original);
    const after = visibleTexts(guarded);
    expect([...after.keys()]).toEqual(['dd18final-0004']);
    for (const [id, text] of before) expect(after.get(id)).toBe(scanText(pack, text).output);
    const answer = after.get('dd18final-0004')!;
    expect(answer).toContain('[redacted:github-pat]');
    expect(answer).toContain('[image blocked: collector.example.net]');
    expect(answer).not.toContain('EXAMPLEexam');
    expect(answer).toContain(CITE);
    // The metadata continuation `{"v":"ended"}` stayed on its own pointer (§1.4, F970).
    expect(answer).not.toContain('ended');
    const meta = (guarded.envelopes.get('dd18final-0004')!.message as Json).metadata as Json;
    expect(meta.reasoning_status).toBe('reasoning_ended');

    // Hidden tool-call text, the tool result and hidden scaffolding pass untouched.
    expect(masked(guarded)).toEqual(masked(original));
    for (const id of ['6d77hidden-0001', 'de84tool-0002', 'a1b2scaffold-0003']) {
      expect(textOf(guarded.envelopes.get(id)!)[0]).toContain(TOKEN);
    }

    // Citation offsets moved with the redactions and still point at their marker.
    const refs = meta.content_references as Json[];
    expect(refs).toHaveLength(2);
    const cite = refs[0]!;
    expect(codePointSlice(answer, cite.start_idx as number, cite.end_idx as number)).toBe(CITE);
    expect(refs[1]!.start_idx).toBe(Array.from(answer).length);

    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['message:dd18final-0004', 'github-pat'],
      ['message:dd18final-0004', 'markdown-image-exfil'],
    ]);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    for (const body of [secret, benign, legacy]) {
      const bytes = new TextEncoder().encode(body);
      const expected = wholeReplay(chatgptWeb, pack, body).output;
      await fc.assert(
        fc.asyncProperty(cutFractions(24), async (cuts) => {
          const out = await throughTransform(chatgptWeb, pack, splitBytes(bytes, cuts));
          expect(new TextDecoder().decode(out)).toBe(expected);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('a block finishes the message, then message_stream_complete and [DONE]: the page is done, nothing to resume', () => {
    const replay = replayBody(chatgptWeb, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    const page = readPage(replay.output);
    expect(page.complete).toBe(true);
    expect(page.done).toBe(true);
    const answer = page.envelopes.get('dd18final-0004')!;
    expect(textOf(answer)[0]).toBe('Sure — the token you pasted is ');
    const message = answer.message as Json;
    expect(message.status).toBe('finished_successfully');
    expect(message.end_turn).toBe(true);
    expect(((message.metadata as Json).finish_details as Json).type).toBe('stop');
    expect(page.events.slice(-2).map((e) => e.data)).toEqual([
      JSON.stringify({
        type: 'message_stream_complete',
        conversation_id: '6a35c0de-0000-4000-8000-00000000c0de',
      }),
      '[DONE]',
    ]);
    expect(replay.output.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('a block inside a batched patch keeps the batch (status included) and adds no second finishing patch', () => {
    const body = secret.replace(
      '{"p": "", "o": "patch", "v": [{"p": "/message/content/parts/0", "o": "append", "v": " Rotate it today."}',
      `{"p": "", "o": "patch", "v": [{"p": "/message/content/parts/0", "o": "append", "v": " Again: ${TOKEN}"}`,
    );
    const noEarlierToken = body
      .replace(`{"v": "${TOKEN.slice(0, 15)}"}`, '{"v": "a-key-"}')
      .replace(`{"v": "${TOKEN.slice(15)}"}`, '{"v": "elided"}');
    expect(noEarlierToken).not.toBe(body);
    const replay = replayBody(chatgptWeb, blocking, [noEarlierToken]);
    expect(replay.blocked).toBe(true);
    const page = readPage(replay.output);
    const message = page.envelopes.get('dd18final-0004')!.message as Json;
    expect(textOf(page.envelopes.get('dd18final-0004')!)[0]).toMatch(/ Again: $/);
    expect(message.status).toBe('finished_successfully');
    expect(page.events.filter((e) => e.data.includes('"o":"patch"'))).toEqual([]);
    expect(page.complete && page.done).toBe(true);
  });
});

describe('chatgpt-web adapter (old cumulative format)', () => {
  it('every snapshot shows only guarded text, never retracts, and ends equal to the guarded whole', () => {
    const replay = wholeReplay(chatgptWeb, pack, legacy);
    expect(replay.issues).toEqual([]);
    const original = readPage(legacy);
    const guarded = readPage(replay.output);
    expect(guarded.events.length).toBe(original.events.length);
    const shown = guarded.snapshots.get('m-legacy-0002')!;
    const finalOriginal = original.snapshots.get('m-legacy-0002')!.at(-1)!;
    expect(shown.at(-1)).toBe(scanText(pack, finalOriginal).output);
    for (const [i, text] of shown.entries()) {
      expect(text).not.toMatch(/ghp_|EXAM|collector\.example\.net\/p/);
      if (i > 0) expect(text.startsWith(shown[i - 1]!)).toBe(true);
    }
    // The hidden tool message is passed through as sent.
    expect(guarded.snapshots.get('m-tool-0001')).toEqual(original.snapshots.get('m-tool-0001'));
    expect(masked(guarded)).toEqual(masked(original));
    // Legacy citations (`start_ix`/`end_ix`) follow the text.
    const final = guarded.envelopes.get('m-legacy-0002')!.message as Json;
    const [citation] = (final.metadata as Json).citations as Json[];
    expect(shown.at(-1)!.slice(citation!.start_ix as number, citation!.end_ix as number)).toBe(
      '[1]',
    );
  });

  it('a block ends with a final finished envelope carrying the guarded text, then [DONE]', () => {
    const replay = replayBody(chatgptWeb, blocking, [legacy]);
    expect(replay.blocked).toBe(true);
    const page = readPage(replay.output);
    expect(page.done).toBe(true);
    const message = page.envelopes.get('m-legacy-0002')!.message as Json;
    expect(message.status).toBe('finished_successfully');
    expect(message.end_turn).toBe(true);
    for (const text of page.snapshots.get('m-legacy-0002')!) {
      expect('Here it is: '.startsWith(text)).toBe(true);
    }
    expect(textOf(page.envelopes.get('m-legacy-0002')!)[0]).toBe('Here it is: ');
    // Only the hidden tool message (passed through by design) still carries it.
    expect(replay.output.slice(replay.output.indexOf('"m-legacy-0002"'))).not.toContain('EXAM');
  });
});

describe('chatgpt-web adapter (protocol edges)', () => {
  const add = (id: string, extra: Json = {}) =>
    JSON.stringify({
      p: '',
      o: 'add',
      v: {
        message: {
          id,
          author: { role: 'assistant' },
          content: { content_type: 'text', parts: [''] },
          status: 'in_progress',
          recipient: 'all',
          ...extra,
        },
        conversation_id: 'c1',
      },
      c: 0,
    });
  const delta = (data: unknown) => `event: delta\ndata: ${JSON.stringify(data)}\n\n`;

  it('guards text in a batched patch without "p", and a bare continuation after it', () => {
    const body =
      'event: delta_encoding\ndata: "v1"\n\n' +
      `event: delta\ndata: ${add('m1')}\n\n` +
      delta({
        o: 'patch',
        v: [{ p: '/message/content/parts/0', o: 'append', v: 'key ghp_EXAMPLE' }],
      }) +
      delta({ p: '/message/content/parts/0', o: 'append', v: 'exampleEXAMPLEexample01234567 ok' }) +
      'data: {"type":"message_stream_complete","conversation_id":"c1"}\n\ndata: [DONE]\n\n';
    const replay = wholeReplay(chatgptWeb, pack, body);
    expect(replay.issues).toEqual([]);
    expect(visibleTexts(readPage(replay.output)).get('m1')).toBe('key [redacted:github-pat] ok');
  });

  it('a message that is not shown (recipient, role, hidden flag) passes through even with a secret', () => {
    for (const extra of [
      { recipient: 'web.run' },
      { author: { role: 'tool' } },
      { metadata: { is_visually_hidden_from_conversation: true } },
    ]) {
      const body =
        `event: delta\ndata: ${add('h1', extra)}\n\n` +
        delta({ p: '/message/content/parts/0', o: 'append', v: `x ${TOKEN} y` }) +
        'data: [DONE]\n\n';
      expect(wholeReplay(chatgptWeb, pack, body).output).toBe(body);
    }
  });

  it('text with no message object before it (a resumed stream) is guarded and reported', () => {
    const body = delta({ p: '/message/content/parts/0', o: 'append', v: `x ${TOKEN} y` });
    const replay = wholeReplay(chatgptWeb, pack, body);
    expect(replay.output).toContain('[redacted:github-pat]');
    expect(replay.issues.map((i) => i.kind)).toEqual(['unrecognised-frame']);
  });

  it('an unterminated last event (a dropped connection) is still guarded, bytes otherwise kept', () => {
    const body =
      `event: delta\ndata: ${add('m1')}\n\n` +
      delta({ p: '/message/content/parts/0', o: 'append', v: 'key ' }) +
      `event: delta\ndata: ${JSON.stringify({ v: `${TOKEN} end` })}`;
    const replay = wholeReplay(chatgptWeb, pack, body);
    expect(replay.output).toBe(body.replace(TOKEN, '[redacted:github-pat]'));
    const clean = body.replace(TOKEN, 'nothing');
    expect(wholeReplay(chatgptWeb, pack, clean).output).toBe(clean);
  });

  it('an unknown typed event passes through unchanged and is reported', () => {
    const body = 'data: {"type":"brand_new_event","x":1}\n\n';
    const replay = wholeReplay(chatgptWeb, pack, body);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'chatgpt-web: event type brand_new_event' },
    ]);
  });

  it('a replace of the whole text is a snapshot: the page gets the guarded whole', () => {
    const body =
      `event: delta\ndata: ${add('m1')}\n\n` +
      delta({ p: '/message/content/parts/0', o: 'append', v: 'draft' }) +
      delta({ p: '/message/content/parts/0', o: 'replace', v: `final ${TOKEN}` }) +
      'data: [DONE]\n\n';
    const replay = wholeReplay(chatgptWeb, pack, body);
    expect(visibleTexts(readPage(replay.output)).get('m1')).toBe('final [redacted:github-pat]');
  });

  it('a whole copy of the finished answer sent again (a final echo) carries the guarded text and offsets', () => {
    const original = readPage(secret).envelopes.get('dd18final-0004')!;
    const echo = `event: delta\ndata: ${JSON.stringify({ p: '', o: 'add', v: original, c: 3 })}\n\n`;
    const complete = 'data: {"type": "message_stream_complete"';
    const body = secret.replace(complete, echo + complete);
    const replay = wholeReplay(chatgptWeb, pack, body);
    expect(replay.issues).toEqual([]);
    const page = readPage(replay.output);
    const answer = textOf(page.envelopes.get('dd18final-0004')!)[0]!;
    expect(answer).toBe(scanText(pack, textOf(original)[0]!).output);
    const meta = (page.envelopes.get('dd18final-0004')!.message as Json).metadata as Json;
    const [cite] = meta.content_references as Json[];
    expect(codePointSlice(answer, cite!.start_idx as number, cite!.end_idx as number)).toBe(CITE);
    const echoed = replay.output.slice(replay.output.lastIndexOf('{"p":"","o":"add"'));
    expect(echoed).toContain('[redacted:github-pat]');
    expect(echoed).not.toContain('EXAMPLEexam');
  });

  it('the unconfirmed truncate and remove ops (§1.4, §9) leave the page with guarded text', () => {
    const start =
      `event: delta\ndata: ${add('m1')}\n\n` +
      delta({ p: '/message/content/parts/0', o: 'append', v: `A ${TOKEN} B C` });
    const cases: [unknown, string][] = [
      // Cut before the redaction: the raw op is right for the guarded text too.
      [{ p: '/message/content/parts/0', o: 'truncate', v: 2 }, 'A  more'],
      // Cut after it: the op is re-sent as a replace with the guarded cut text.
      [
        { p: '/message/content/parts/0', o: 'truncate', v: 2 + TOKEN.length + 2 },
        'A [redacted:github-pat] B more',
      ],
      [{ p: '/message/content/parts/0', o: 'remove' }, ' more'],
    ];
    for (const [op, text] of cases) {
      const body =
        start + delta(op) + delta({ p: '/message/content/parts/0', o: 'append', v: ' more' });
      const replay = wholeReplay(chatgptWeb, pack, body);
      const page = readPage(replay.output);
      expect(textOf(page.envelopes.get('m1')!)[0] ?? '').toBe(text);
      expect(replay.output).not.toContain('EXAMPLEexam');
    }
  });

  it('a blocked stream is the same for any split of the wire bytes', async () => {
    for (const body of [secret, legacy]) {
      const bytes = new TextEncoder().encode(body);
      const expected = replayBody(chatgptWeb, blocking, [body]).output;
      await fc.assert(
        fc.asyncProperty(cutFractions(16), async (cuts) => {
          const out = await throughTransform(chatgptWeb, blocking, splitBytes(bytes, cuts));
          expect(new TextDecoder().decode(out)).toBe(expected);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('detects the conversation streams by URL or by the delta_encoding event', () => {
    const sse = 'text/event-stream; charset=utf-8';
    const probe = (url: string, head = '', contentType = sse) => ({ url, contentType, head });
    expect(chatgptWeb.detect(probe('https://chatgpt.com/backend-api/f/conversation'))).toBe(true);
    expect(chatgptWeb.detect(probe('https://chatgpt.com/backend-api/conversation'))).toBe(true);
    expect(chatgptWeb.detect(probe('https://chatgpt.com/backend-anon/f/conversation'))).toBe(true);
    expect(chatgptWeb.detect(probe('https://chatgpt.com/backend-api/f/conversation/resume'))).toBe(
      true,
    );
    expect(chatgptWeb.detect(probe('/x', 'event: delta_encoding\ndata: "v1"\n\n'))).toBe(true);
    expect(chatgptWeb.detect(probe('https://chatgpt.com/backend-api/f/conversation/prepare'))).toBe(
      false,
    );
    expect(
      chatgptWeb.detect(
        probe('https://chatgpt.com/backend-api/f/conversation', '', 'application/json'),
      ),
    ).toBe(false);
    // Captures without their URL (`csg replay body.sse`): by their opening frames.
    for (const body of [benign, secret, legacy]) {
      expect(chatgptWeb.detect(probe('', body.slice(0, 1024)))).toBe(true);
    }
    expect(chatgptWeb.detect(probe('', 'data: {"id":"chatcmpl-1","choices":[]}\n\n'))).toBe(false);
  });
});
