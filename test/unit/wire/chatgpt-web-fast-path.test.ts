/**
 * ChatGPT web's continuation frames `{"v":"…"}` read by their learned shape
 * (chatgpt-web.ts `continuedText`, string-slot-template.ts; issue 20's wire ≤ 2×
 * target) must give exactly what parsing every frame gives: a differential
 * property, the adapter with the fast path against the same adapter without it,
 * for any events and any split of the wire bytes. The events include frames of
 * that shape that must take the slow path: after an op at another path or with
 * another op (the cursor then continues a status, metadata or replace), after a
 * message switch, after the message ended, a `v` that is not a string, repeated
 * keys, extra keys, escaped strings, another event name, and citation offsets
 * (WIRE-FORMATS.md §1.4) that must keep pointing at the guarded text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { AppendedText } from '../../../src/core/wire/adapters/appended-text.ts';
import { chatgptSession, chatgptWeb } from '../../../src/core/wire/adapters/chatgpt-web.ts';
import { SseFramer } from '../../../src/core/wire/framing/sse-framer.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import type { AdapterSession, WireAdapter, WireEvent } from '../../../src/core/wire/wire-event.ts';
import { codeWordPackSpec } from '../../support/code-word-pack.ts';

/** One redact rule and one block rule, so redactions, cuts and blocks are all reached. */
const pack = compilePack(codeWordPackSpec('chatgpt-fast-path-test'));

/** Texts that reach the rules, JSON's awkward characters, surrogates, citation markers. */
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom(
    'zebra-',
    '12',
    '3',
    'STOP',
    '42',
    '"',
    '\\',
    '\n',
    '\u0000',
    '\ud83d',
    '\ude00',
    '\ue200cite\ue202turn0search1\ue201',
    'a longer delta of more than thirteen units',
  ),
);

/** A JSON string literal of `value`, sometimes spelled with escapes a server may use. */
const literal = (value: string, escaped: boolean): string =>
  escaped
    ? '"' +
      [...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') +
      '"'
    : JSON.stringify(value);

const message = (id: string, extra = '') =>
  `{"id":"${id}","author":{"role":"assistant"},"content":{"content_type":"text","parts":[""]},` +
  `"status":"in_progress","recipient":"all"${extra}}`;

/** Frames around the continuations: ops that move the cursor, switches, ends, look-alikes. */
const otherData = fc.constantFrom(
  `{"p":"","o":"add","v":{"message":${message('m1')},"conversation_id":"conv-1"},"c":0}`,
  `{"v":{"message":${message('m2')},"conversation_id":"conv-1"},"c":1}`,
  `{"v":{"message":${message('m1')}},"c":0}`,
  `{"v":{"message":{"id":"t1","author":{"role":"tool"},"content":{"content_type":"text","parts":[""]},"recipient":"all"}},"c":2}`,
  `{"v":{"message":{"id":"b1","author":{"role":"assistant"},"content":{"content_type":"text","parts":[""]},"recipient":"bio"}},"c":3}`,
  '{"p":"/message/content/parts/0","o":"append","v":"zebra-"}',
  '{"p":"/message/content/parts/0","o":"append","v":"ab"}',
  '{"p":"/message/content/parts/0","o":"replace","v":"zebra-1"}',
  '{"p":"/message/content/parts/0","v":"x"}',
  '{"p":"/message/content/parts/0","o":"truncate","v":2}',
  '{"p":"/message/status","o":"replace","v":"in_progress"}',
  '{"p":"/message/status","o":"replace","v":"finished_successfully"}',
  '{"p":"/message/recipient","o":"replace","v":"all"}',
  '{"p":"/message/metadata/content_references","o":"append","v":[{"start_idx":0,"end_idx":4,"matched_text":"zebr"}]}',
  '{"p":"/message/metadata","o":"append","v":{"citations":[{"start_ix":1,"end_ix":3}]}}',
  '{"p":"","o":"patch","v":[{"p":"/message/content/parts/0","o":"append","v":"12"},{"p":"/message/status","o":"replace","v":"finished_successfully"}]}',
  '{"p":"","o":"patch","v":[{"p":"/message/content/parts/0","o":"append","v":"zebra-4"}]}',
  `{"message":${message('m3').replace('[""]', '["whole zebra-77"]')}}`,
  `{"message":${message('m1').replace('"in_progress"', '"finished_successfully"')}}`,
  '{"v":5}',
  '{"v":null}',
  '{"v":["a"]}',
  '{"v":"zeb","v":"ra-4"}',
  '{"v":"x","c":2}',
  '{"v":"x","conversation_id":"conv-2"}',
  '{"v":"x","type":"message_marker"}',
  '{"type":"message_stream_complete","conversation_id":"conv-1"}',
  '{"type":"message_marker","conversation_id":"conv-1","message_id":"m1"}',
  '"v1"',
  'not json',
  '[DONE]',
);

/**
 * The continuation frame with any string, in two spacings; sometimes with a key
 * that makes the slow path do more (a conversation id, a type) or nothing more
 * (a counter), so a shape learned from those must not be taken for it.
 */
const continuation = fc
  .tuple(
    text,
    fc.boolean(),
    fc.constantFrom('{"v": ', '{"v": ', '{"v":'),
    fc.constantFrom('}', '}', '}', '}', ',"c":2}', ',"conversation_id":"conv-2"}', ',"type":"x"}'),
  )
  .map(([value, escaped, head, tail]) => `${head}${literal(value, escaped)}${tail}`);

/** An op that puts the cursor at the text, as a stream does after a message opens. */
const textOp = text.map(
  (value) => `{"p":"/message/content/parts/0","o":"append","v":${literal(value, false)}}`,
);

/** Runs as a stream has them: another frame, often a text op, then continuations. */
const chatgptEvents = fc
  .tuple(
    otherData,
    fc.option(textOp, { nil: undefined, freq: 2 }),
    fc.array(continuation, { maxLength: 5 }),
  )
  .map(([other, op, more]) => (op === undefined ? [other, ...more] : [other, op, ...more]));

/** SSE framing: mostly `event: delta`, sometimes no name, another name, other line ends. */
const framed = fc
  .array(chatgptEvents, { maxLength: 8 })
  .chain((runs) =>
    fc.tuple(
      ...runs
        .flat()
        .map((data) =>
          fc.tuple(
            fc.constant(data),
            fc.constantFrom(
              'event: delta\ndata: ',
              'event: delta\ndata: ',
              'event: delta\ndata: ',
              'data: ',
              'data:',
              'event: delta_encoding\ndata: ',
              'event: other\ndata: ',
              ': ping\nevent: delta\ndata: ',
            ),
            fc.constantFrom('\n\n', '\n\n', '\n\n', '\r\n\r\n', '\r\r'),
          ),
        ),
    ),
  )
  .map((list) => list.map(([data, head, end]) => head + data + end).join(''));

/** The body cut at any points. */
const split = (body: string) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, body.length - 1) }), { maxLength: 8 })
    .map((cuts) => {
      const at = [0, ...cuts.filter((c) => c < body.length).sort((a, b) => a - b), body.length];
      return at.slice(1).map((end, i) => body.slice(at[i], end));
    });

/** The adapter, noting the slots, ends and issues of every event it decodes in `log`. */
function noting(fastPath: boolean, log: unknown[]): WireAdapter {
  return {
    ...chatgptWeb,
    open: () => {
      const session = chatgptSession(fastPath);
      return {
        ...session,
        decode: (frame) => {
          const event = session.decode(frame);
          log.push(event.slots, event.ends, event.unrecognised, event.flags);
          return event;
        },
      };
    },
  };
}

/**
 * A frame re-rendered, or the error it fails with: the slow path cannot render a few
 * anomalies (an op `truncate` continued without its `o`), and the rewriter then fails
 * closed; the fast path must fail the same way there.
 */
function rendered(event: WireEvent, texts: readonly string[]): { text?: string; error?: string } {
  try {
    return { text: event.render(texts) };
  } catch (error) {
    return { error: String(error) };
  }
}

describe('ChatGPT web continuation frames read by their learned shape', () => {
  it('give the same output, guard events, issues and slots as parsing every frame, for any events and split', () => {
    fc.assert(
      fc.property(
        framed.chain((body) => split(body)),
        (chunks) => {
          const fastLog: unknown[] = [];
          const slowLog: unknown[] = [];
          const fast = replayBody(noting(true, fastLog), pack, chunks);
          const slow = replayBody(noting(false, slowLog), pack, chunks);
          expect(fast).toEqual(slow);
          // The text the guard was given, not only what came out of it.
          expect(fastLog).toEqual(slowLog);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('decode each frame as the slow path does, slots and re-rendering included', () => {
    fc.assert(
      fc.property(framed, fc.array(text, { minLength: 1, maxLength: 4 }), (body, texts) => {
        const frames = new SseFramer().push(body);
        const fast: AdapterSession = chatgptSession(true);
        const slow: AdapterSession = chatgptSession(false);
        for (const frame of frames) {
          const a = fast.decode(frame);
          const b = slow.decode(frame);
          expect(a.slots).toEqual(b.slots);
          expect(a.ends).toEqual(b.ends);
          expect(a.unrecognised).toEqual(b.unrecognised);
          expect(a.flags).toEqual(b.flags);
          const replacements = a.slots.map((_, i) => texts[i % texts.length] as string);
          expect(rendered(a, replacements)).toEqual(rendered(b, replacements));
          fast.emitted?.(a);
          slow.emitted?.(b);
        }
        expect(fast.blockEnding()).toBe(slow.blockEnding());
      }),
      { numRuns: 400 },
    );
  });

  it('takes the fast path for the common frame (the differential compares something)', () => {
    const body =
      `event: delta\ndata: {"p":"","o":"add","v":{"message":${message('m1')}},"c":0}\n\n` +
      'event: delta\ndata: {"p":"/message/content/parts/0","o":"append","v":"a"}\n\n' +
      'event: delta\ndata: {"v":"b"}\n\n' +
      'event: delta\ndata: {"v":"c\\"d"}\n\n' +
      'event: delta\ndata: {"v":"e"}\n\n';
    const session = chatgptSession(true);
    const events = new SseFramer().push(body).map((frame) => session.decode(frame));
    const names = events.map((e) => e.constructor.name);
    // The second continuation on is read by the shape learned from the first.
    expect(names.slice(3)).toEqual(['ContinuedText', 'ContinuedText']);
    expect(events[3]?.slots).toEqual([{ channel: 'message:m1', mode: 'delta', text: 'c"d' }]);
  });
});

describe('AppendedText', () => {
  it('is the concatenation of what was set and appended, for any sequence', () => {
    const step = fc.oneof(
      { weight: 20, arbitrary: text.map((t) => ({ append: t })) },
      { weight: 1, arbitrary: text.map((t) => ({ set: t })) },
      { weight: 2, arbitrary: fc.constant({ read: true }) },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 700 }), (steps) => {
        const appended = new AppendedText();
        let expected = '';
        for (const s of steps) {
          if ('append' in s) {
            appended.append(s.append);
            expected += s.append;
          } else if ('set' in s) {
            appended.set(s.set);
            expected = s.set;
          } else {
            expect(appended.value).toBe(expected);
          }
          expect(appended.isEmpty).toBe(expected === '');
        }
        expect(appended.value).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
