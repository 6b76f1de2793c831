/**
 * The shape-specialised fast paths of the wire (issue 19 §3): delta chunks read
 * by their learned shape (string-slot-template.ts) in the OpenAI chat and AI SDK
 * UI adapters, and the lone `data:` line read without the SSE parser
 * (sse-framer.ts). Each must give exactly what the slow path gives, for any
 * events and any split of the body: a differential property, the adapters
 * with the fast path against the same adapters without it.
 */
import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { aiSdkUiSession, aiSdkUiStream } from '../../../src/core/wire/adapters/ai-sdk-ui-stream.ts';
import {
  openAiChatStream,
  openAiChatStreamSession,
} from '../../../src/core/wire/adapters/openai-chat.ts';
import { yuanbaoSession, yuanbaoWeb } from '../../../src/core/wire/adapters/yuanbao-web.ts';
import { SseFramer } from '../../../src/core/wire/framing/sse-framer.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { StringSlotTemplate } from '../../../src/core/wire/string-slot-template.ts';
import type { AdapterSession, WireAdapter } from '../../../src/core/wire/wire-event.ts';
import { codeWordPackSpec } from '../../support/code-word-pack.ts';

/** One redact rule and one block rule, so redactions, cuts and blocks are all reached. */
const pack = compilePack(codeWordPackSpec('template-test'));

/** Texts that reach the rules, JSON's awkward characters and surrogates. */
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('zebra-', '12', '3', 'STOP', '42', '"', '\\', '\n', '\u0000', '\ud83d', '\ude00'),
);

/** A JSON string literal of `value`, sometimes spelled with escapes a server may use. */
const literal = (value: string, escaped: boolean): string =>
  escaped
    ? '"' +
      [...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') +
      '"'
    : JSON.stringify(value);

const openAiEvent = fc
  .oneof(
    { weight: 8, arbitrary: fc.tuple(text, fc.boolean()) },
    { weight: 1, arbitrary: fc.constant(null) },
  )
  .chain((delta) =>
    fc.oneof(
      // The common chunk, most of the stream.
      {
        weight: 8,
        arbitrary: fc.constant(
          delta === null
            ? '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'
            : `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${literal(...delta)}},"finish_reason":null}]}`,
        ),
      },
      // Other shapes around it: the role chunk, another choice, reasoning, repeated keys
      // (JSON.parse reads the last), spacing, text parts, not JSON, the end.
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
          '{"id":"c1","choices":[{"index":1,"delta":{"content":"zebra-1"}}]}',
          '{"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"STOP"}}]}',
          '{"id":"c1","choices":[{"index":0,"delta":{"content":"zeb","content":"ra-9"}}]}',
          '{"id":"c1","choices":[{"index":0,"delta":{"content":"a"}}],"choices":[]}',
          '{"id":"c1", "choices":[{"index":0,"delta":{"content":"99"}}]}',
          '{"id":"c1","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"x"}]}}]}',
          'not json',
          '[DONE]',
        ),
      },
    ),
  );

const aiSdkEvent = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(text, fc.boolean(), fc.constantFrom('text', 'reasoning'), fc.constantFrom('t0', 't1'))
      .map(
        ([value, escaped, kind, id]) =>
          `{"type":"${kind}-delta","id":"${id}","delta":${literal(value, escaped)}}`,
      ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '{"type":"start","messageId":"m1"}',
      '{"type":"start-step"}',
      '{"type":"text-start","id":"t0"}',
      '{"type":"text-start","id":"t1"}',
      '{"type":"text-end","id":"t0"}',
      '{"type":"reasoning-start","id":"t0"}',
      '{"type":"reasoning-end","id":"t1"}',
      '{"type":"reasoning","text":"zebra-5"}',
      '{"type":"text-delta","id":"t0","delta":"zebra-","delta":"77"}',
      '{"type":"text-delta","type":"text-start","id":"t0","delta":"x"}',
      '{"type":"text-delta","id":"t0","delta":7}',
      '{"type":"finish-step"}',
      '{"type":"finish"}',
      'not json',
      '[DONE]',
    ),
  },
);

/** Yuanbao's chunks (WIRE-FORMATS-2.md §3.4): answer and reasoning deltas, and what surrounds them. */
const yuanbaoEvent = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(text, fc.boolean(), fc.constantFrom('text', 'text', 'think'))
      .map(([value, escaped, type]) =>
        type === 'text'
          ? `{"type":"text","msg":${literal(value, escaped)}}`
          : `{"type":"think","content":${literal(value, escaped)}}`,
      ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '{"type":"meta","messageId":"m1"}',
      '[MSGINDEX:2]',
      'status',
      '{"type":"text","msg":"zeb","msg":"ra-4"}',
      '{"type":"think","type":"text","content":"x","msg":"y"}',
      '{"type":"text","msg":5}',
      '{"type":"text", "msg":"99"}',
      '{"type":"think","content":"STOP"}',
      '{"type":"searchGuid","docs":[]}',
      'Not json',
      '[DONE]',
    ),
  },
);

/** SSE framing of each event: mostly `data: …\n\n`, sometimes other line ends or fields. */
const framed = (events: fc.Arbitrary<string>) =>
  fc
    .array(
      fc.tuple(
        events,
        fc.constantFrom(
          'data: ',
          'data: ',
          'data: ',
          'data:',
          'event: delta\ndata: ',
          ': ping\ndata: ',
        ),
        fc.constantFrom('\n\n', '\n\n', '\n\n', '\r\n\r\n', '\r\r', '\n'),
      ),
      { maxLength: 30 },
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

/** The adapter, noting the slots and ends of every event it decodes in `log`. */
function noting(adapter: WireAdapter, open: () => AdapterSession, log: unknown[]): WireAdapter {
  return {
    ...adapter,
    open: () => {
      const session = open();
      return {
        ...session,
        decode: (frame) => {
          const event = session.decode(frame);
          log.push(event.slots, event.ends);
          return event;
        },
      };
    },
  };
}

function differential(
  events: fc.Arbitrary<string>,
  adapter: WireAdapter,
  open: (fastPath: boolean) => AdapterSession,
): void {
  fc.assert(
    fc.property(
      framed(events).chain((body) => split(body)),
      (chunks) => {
        const fastLog: unknown[] = [];
        const slowLog: unknown[] = [];
        const fast = replayBody(
          noting(adapter, () => open(true), fastLog),
          pack,
          chunks,
        );
        const slow = replayBody(
          noting(adapter, () => open(false), slowLog),
          pack,
          chunks,
        );
        expect(fast).toEqual(slow);
        // The text the guard was given, not only what came out of it.
        expect(fastLog).toEqual(slowLog);
      },
    ),
    { numRuns: 400 },
  );
}

describe('delta chunks read by their learned shape', () => {
  it('OpenAI chat: the same output, events and issues as parsing every chunk, for any events and split', () => {
    differential(openAiEvent, openAiChatStream, openAiChatStreamSession);
  });

  it('AI SDK UI: the same output, events and issues as parsing every chunk, for any events and split', () => {
    differential(aiSdkEvent, aiSdkUiStream, aiSdkUiSession);
  });

  it('Yuanbao: the same output, events and issues as parsing every chunk, for any events and split', () => {
    differential(yuanbaoEvent, yuanbaoWeb, yuanbaoSession);
  });

  it.each([
    ['OpenAI chat', openAiEvent, openAiChatStreamSession],
    ['AI SDK UI', aiSdkEvent, aiSdkUiSession],
    ['Yuanbao', yuanbaoEvent, yuanbaoSession],
  ] as const)(
    '%s: decodes each event as the slow path does, slots and re-rendering included',
    (_, events, open) => {
      fc.assert(
        fc.property(
          framed(events),
          fc.array(text, { minLength: 1, maxLength: 4 }),
          (body, texts) => {
            const frames = new SseFramer().push(body);
            const fast = open(true);
            const slow = open(false);
            for (const frame of frames) {
              const a = fast.decode(frame);
              const b = slow.decode(frame);
              expect(a.slots).toEqual(b.slots);
              expect(a.ends).toEqual(b.ends);
              expect(a.unrecognised).toEqual(b.unrecognised);
              const replacements = a.slots.map((_, i) => texts[i % texts.length] as string);
              expect(a.render(replacements)).toBe(b.render(replacements));
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('uses a learned shape (the fast path is taken), and never one JSON.parse would read elsewhere', () => {
    const template = new StringSlotTemplate<string>();
    template.learn('{"a":{"b":"x"},"c":1}', ['a', 'b'], 'info');
    expect(template.match('{"a":{"b":"y\\"z"},"c":1}')).toEqual({ text: 'y"z', info: 'info' });
    expect(template.match('{"a":{"b":"y"z"},"c":1}')).toBeUndefined();
    expect(template.match('{"a":{"b":"y\\"},"c":1}')).toBeUndefined();
    expect(template.match('{"a":{"b":1},"c":1}')).toBeUndefined();
    // A repeated key: JSON.parse reads the last "b", so no shape is learned from the first.
    const shadowed = new StringSlotTemplate<string>();
    shadowed.learn('{"a":{"b":"x","b":"w"}}', ['a', 'b'], 'info');
    expect(shadowed.match('{"a":{"b":"y","b":"w"}}')).toBeUndefined();
  });
});

describe('string literals read by the template', () => {
  it('give the text JSON.parse gives, or no hit where it throws, for any literal', () => {
    // Between its quotes: any characters, escapes good and bad (`\u` with any four
    // characters, a backslash before anything), raw quotes and control characters.
    const piece = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.string({ unit: 'binary', maxLength: 2 }),
      fc.constantFrom(
        '\\',
        '\\"',
        '\\n',
        '\\/',
        '\\b',
        '\\f',
        '\\r',
        '\\t',
        '\\x',
        '"',
        '\n',
        '\u001f',
        '\u0000',
        ' ',
      ),
      fc
        .string({
          unit: fc.constantFrom('0', '9', 'a', 'F', 'g', 'D', '8', '3', 'e', ' '),
          minLength: 0,
          maxLength: 5,
        })
        .map((hex) => `\\u${hex}`),
    );
    const template = new StringSlotTemplate<string>();
    template.learn('{"a":"x","b":1}', ['a'], 'info');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const literal = `"${pieces.join('')}"`;
        let parsed: unknown;
        try {
          parsed = JSON.parse(literal);
        } catch {
          parsed = undefined;
        }
        const hit = template.match(`{"a":${literal},"b":1}`);
        expect(hit?.text).toBe(parsed);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('SSE framing of a lone data line without the parser', () => {
  it('gives every frame the fields a fresh parser gives its text, for any body and split', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 6 }).map((v) => `data: ${v}`),
      fc.string({ maxLength: 6 }).map((v) => `data:${v}`),
      fc.constantFrom('event: e', 'id: 7', ': c', 'retry: 5', 'data', ''),
    );
    const end = fc.constantFrom('\n', '\n', '\r\n', '\r');
    // Mostly the common frame, a lone data line (any spacing), among any other lines.
    const frame = fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .tuple(fc.constantFrom('data: ', 'data:', 'data:  '), fc.string({ maxLength: 6 }))
          .map(([head, value]) => `${head}${value}\n\n`),
      },
      {
        weight: 2,
        arbitrary: fc
          .array(fc.tuple(line, end), { maxLength: 4 })
          .map((lines) => lines.map(([l, e]) => l + e).join('')),
      },
    );
    const body = fc.array(frame, { maxLength: 12 }).map((frames) => frames.join(''));
    fc.assert(
      fc.property(
        body.chain((b) => split(b)),
        (chunks) => {
          const framer = new SseFramer();
          const frames = [...chunks.flatMap((c) => framer.push(c)), ...framer.end()];
          frames.forEach((frame) => {
            // A frame is one whole event: the fields a parser gives its text read to the
            // end (a blank line). The parser holds nothing between frames.
            let dispatched: { data: string; event?: string; id?: string } | undefined;
            const parser = createParser({ onEvent: (m) => (dispatched = m) });
            parser.feed(frame.raw + '\n\n');
            const expected =
              dispatched === undefined
                ? undefined
                : {
                    data: dispatched.data,
                    ...(dispatched.event === undefined ? {} : { event: dispatched.event }),
                    ...(dispatched.id === undefined ? {} : { id: dispatched.id }),
                  };
            expect(frame.sse).toEqual(expected);
          });
          expect(frames.map((f) => f.raw).join('')).toBe(chunks.join(''));
        },
      ),
      { numRuns: 500 },
    );
  });
});
