/**
 * Issue 18 §1: answers are recognised by their structure, with a generic
 * fallback. One example per class of the issue (recognition by wording, text
 * fields the adapter did not read), the generic adapter's continuity per JSON
 * path, byte identity when nothing matches, and the binary answer that is
 * reported and stopped.
 */
import { Stream } from 'openai/streaming';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { builtinPackJson, getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { adapterById, detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { genericAdapter } from '../../../src/core/wire/adapters/structural.ts';
import { PathContinuity } from '../../../src/core/wire/adapters/generic-structural.ts';
import {
  sniffFraming,
  StructuralFramer,
} from '../../../src/core/wire/framing/structural-framer.ts';
import { scanJsonStrings, spliceJsonStrings } from '../../../src/core/wire/json-string-scan.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { StreamRewriter } from '../../../src/core/wire/stream-rewriter.ts';
import {
  UNDECODABLE_RULE,
  type WireFormat,
  type WireProbe,
} from '../../../src/core/wire/wire-event.ts';
import { recogniseResponse } from '../../../src/core/wire/wire-recognisers.ts';
import { cut, cutsArbitrary, textArbitrary } from '../../support/text-arbitraries.ts';
import { blockingPack, fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const SECRET = 'ghp_EXAMPLEexampleEXAMPLEexample01234567';
const REDACTED = '[redacted:github-pat]';

/** A probe for an answer to `POST /api/stream` (no adapter claims that URL). */
function probe(contentType: string, head: string, chatRequest = true): WireProbe {
  const p: WireProbe = {
    url: 'https://proxy.example/api/stream',
    method: 'POST',
    contentType,
    head,
  };
  if (chatRequest) p.chatRequest = true;
  return p;
}

/** Replays a body through the generic adapter; also the format it reported. */
function replay(body: string, chunks: string[] = [body], packToUse = pack) {
  const formats: WireFormat[] = [];
  const events: { channel: string; rule?: string; type: string }[] = [];
  const issues: string[] = [];
  const rewriter = new StreamRewriter(genericAdapter, packToUse, {
    onFormat: (format) => formats.push(format),
    onGuardEvents: (channel, list) =>
      events.push(...list.map((e) => ({ channel, type: e.type, rule: e.rule }))),
    onIssue: (issue) => issues.push(issue.kind),
  });
  let output = '';
  for (const chunk of chunks) output += rewriter.push(chunk);
  output += rewriter.end();
  return { output, formats, events, issues, blocked: rewriter.isBlocked };
}

async function sdkText(body: string, contentType: string): Promise<string> {
  const response = new Response(new TextEncoder().encode(body), {
    headers: contentType === '' ? {} : { 'content-type': contentType },
  });
  const stream = Stream.fromSSEResponse<ChatCompletionChunk>(response, new AbortController());
  let text = '';
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
    for (const field of ['content', 'reasoning']) {
      if (typeof delta?.[field] === 'string') text += delta[field] as string;
    }
  }
  return text;
}

describe('recognition by structure, not wording (issue 18 §1)', () => {
  const proxy = fixture('generic/proxy-delta-only.sse');

  it.each(['text/plain', 'application/octet-stream', '', 'text/event-stream'])(
    'a proxy at POST /api/stream with only choices[].delta, served as "%s": guarded as OpenAI chat',
    async (contentType) => {
      expect(recogniseResponse(probe(contentType, proxy.slice(0, 1024)))?.id).toBe('generic');
      const result = replay(proxy);
      expect(result.formats).toEqual(['openai-chat']);
      expect(result.output).not.toContain('EXAMPLEexam');
      expect(result.events).toMatchObject([{ channel: 'choice:0', rule: 'github-pat' }]);
      // The official SDK reader reads the guarded stream, whatever the content type said.
      expect(await sdkText(result.output, contentType)).toBe(`Here it is: ${REDACTED} — done.`);
    },
  );

  it('without a chat-shaped request, the head alone is enough when it shows a known shape', () => {
    expect(recogniseResponse(probe('text/plain', proxy.slice(0, 1024), false))?.id).toBe('generic');
    const plainJson = probe('application/json', '{"hello":"world"}', false);
    expect(recogniseResponse(plainJson)).toBeUndefined();
    // With a chat-shaped request, any answer is guarded; media never is.
    expect(recogniseResponse({ ...plainJson, chatRequest: true })?.id).toBe('generic');
    expect(recogniseResponse(probe('audio/mpeg', ''))).toBeUndefined();
    expect(recogniseResponse(probe('image/png', ''))).toBeUndefined();
  });

  it('a first event {"status":"connected"} and a role-only delta', () => {
    const body = fixture('generic/connected-first.sse');
    const result = replay(body);
    expect(result.formats).toEqual(['openai-chat']);
    expect(result.output).toContain('data: {"status":"connected"}\n\n');
    expect(result.output).toContain(`Key: ${REDACTED}`);
    expect(result.output).not.toContain('EXAMPLEexam');
  });

  it('2 KB of SSE comment padding before the first event', () => {
    const padding = `: ${'-'.repeat(2048)}\n\n`;
    const body = padding + proxy;
    expect(sniffFraming(body.slice(0, 1024), false)).toBe('sse');
    const result = replay(body);
    expect(result.output.startsWith(padding)).toBe(true);
    expect(result.output).toContain(REDACTED);
    expect(result.formats).toEqual(['openai-chat']);
  });

  it('a trailing slash on /chat/completions/ is the OpenAI adapter', () => {
    const p: WireProbe = {
      url: 'https://x.example/v1/chat/completions/',
      contentType: 'text/event-stream',
      head: '',
    };
    expect(recogniseResponse(p)?.id).toBe('openai-chat-stream');
  });

  it.each([
    ['object absent', 'generic/answer-no-object.json'],
    ['object late, after the first kilobyte', 'generic/answer-object-late.json'],
  ])('a non-streaming JSON answer, %s', (_name, path) => {
    const body = fixture(path);
    expect(detectAdapter(probe('application/json', body.slice(0, 1024)))?.id).toBe('generic');
    const result = replay(body);
    expect(result.formats).toEqual(['openai-chat']);
    expect(JSON.parse(result.output)).toEqual({
      ...(JSON.parse(body) as object),
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: `Here: ${REDACTED}.` },
          finish_reason: 'stop',
        },
      ],
    });
  });

  it('an Anthropic-compatible stream at another URL, served as text/plain', () => {
    const body = fixture('anthropic/secret-split.sse');
    expect(recogniseResponse(probe('text/plain', body.slice(0, 1024)))?.id).toBe('generic');
    const result = replay(body);
    expect(result.formats).toEqual(['anthropic']);
    expect(result.output).toBe(replayBody(adapterById('anthropic-messages')!, pack, [body]).output);
    expect(result.output).toContain(REDACTED);
  });

  it('Ollama lines, an OpenAI Responses stream and Gemini chunks, by structure', () => {
    const ollama = fixture('ollama/chat-secret-split.ndjson');
    expect(replay(ollama).formats).toEqual(['ollama']);
    expect(replay(ollama).output).toBe(
      replayBody(adapterById('ollama-stream')!, pack, [ollama]).output,
    );
    const responses = fixture('openai-responses/secret-split.sse');
    expect(replay(responses).formats).toEqual(['openai-responses']);
    expect(replay(responses).output).toBe(
      replayBody(adapterById('openai-responses-stream')!, pack, [responses]).output,
    );
    const gemini = fixture('gemini-api/secret-split.sse');
    expect(replay(gemini).formats).toEqual(['gemini-api']);
    expect(replay(gemini).output).toBe(
      replayBody(adapterById('gemini-api-stream')!, pack, [gemini]).output,
    );
  });
});

describe('text fields the OpenAI adapter did not read (issue 18 §1)', () => {
  it('delta.reasoning', async () => {
    const body = fixture('generic/reasoning.sse');
    const result = replayBody(adapterById('openai-chat-stream')!, pack, [body]);
    expect(result.output).not.toContain('EXAMPLEexam');
    expect(result.events).toMatchObject([{ channel: 'reasoning-text:0' }]);
    expect(await sdkText(result.output, 'text/event-stream')).toBe(
      `Thinking: ${REDACTED} found.Answer.`,
    );
  });

  it('delta.content as an array of text parts', () => {
    const body = fixture('generic/content-parts.sse');
    const result = replayBody(adapterById('openai-chat-stream')!, pack, [body]);
    expect(result.output).not.toContain('EXAMPLEexam');
    expect(result.output).toContain(`"content":[{"type":"text","text":"Key ${REDACTED}"}]`);
  });

  it('legacy choices[].text, streamed and whole', () => {
    const body = fixture('generic/legacy-text.sse');
    const result = replayBody(adapterById('openai-chat-stream')!, pack, [body]);
    expect(result.output).not.toContain('EXAMPLEexam');
    expect(result.events).toMatchObject([{ channel: 'choice:0' }]);
    const whole = JSON.stringify({
      object: 'text_completion',
      choices: [{ index: 0, text: `Key ${SECRET}`, finish_reason: 'stop' }],
    });
    expect(replay(whole).output).toBe(whole.replace(SECRET, REDACTED));
  });

  it('reasoning_content and reasoning are separate streams (a page reads one of them)', () => {
    const chunk = (d: object) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: d }] })}\n\n`;
    const body =
      chunk({ reasoning: 'ghp_EXAMPLEexam', reasoning_content: 'ghp_EXAMPLEexam' }) +
      chunk({
        reasoning: 'pleEXAMPLEexample01234567',
        reasoning_content: 'pleEXAMPLEexample01234567',
      });
    const result = replayBody(adapterById('openai-chat-stream')!, pack, [body]);
    expect(result.output).not.toContain('EXAMPLEexam');
    expect(result.events.map((e) => e.channel).sort()).toEqual(['reasoning-text:0', 'reasoning:0']);
  });
});

describe('the generic structural adapter', () => {
  it('joins deltas per JSON path across NDJSON lines, and marks the stream generic', () => {
    const body = fixture('generic/unknown-deltas.ndjson');
    const result = replay(body);
    expect(result.formats).toEqual([]);
    expect(result.output).toBe(
      body.replace('ghp_EXAMPLEexam', REDACTED).replace('pleEXAMPLEexample01234567', ''),
    );
    expect(result.events).toEqual([
      { channel: 'json/data/token', type: 'match', rule: 'github-pat' },
    ]);
  });

  it('treats growing snapshots as snapshots: the new suffix is guarded, the whole re-emitted', () => {
    const body = fixture('generic/unknown-snapshots.ndjson');
    const result = replay(body);
    const lines = result.output
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { answer: string });
    expect(lines.map((l) => l.answer)).toEqual([
      `Key ${REDACTED}`,
      `Key ${REDACTED}`,
      `Key ${REDACTED} — done`,
    ]);
    // One match for the one secret, although three snapshots carry it.
    expect(result.events).toHaveLength(1);
  });

  it('a constant field (an id) ends its stream, so it never holds the answer back', () => {
    const c = new PathContinuity();
    expect(c.slot('/id', 'run-1').mode).toBe('delta');
    expect(c.slot('/id', 'run-1').mode).toBe('echo');
    expect(c.slot('/id', 'run-1').mode).toBe('echo');
    // It grows later: a fresh stream, fed the value whole.
    expect(c.slot('/id', 'run-12')).toEqual({ channel: '/id#1', mode: 'snapshot', text: 'run-12' });
    expect(c.slot('/t', 'a').mode).toBe('delta');
    expect(c.slot('/t', 'ab').mode).toBe('snapshot');
    expect(c.slot('/t', 'c').mode).toBe('delta');
  });

  it('reads the Vercel AI data stream (`0:"…"` lines) per prefix', () => {
    const body = fixture('generic/data-stream.txt');
    const result = replay(body);
    expect(result.output).toBe(
      body.replace('ghp_EXAMPLEexam', REDACTED).replace('0:"pleEXAMPLEexample01234567"', '0:""'),
    );
  });

  it('guards SSE data that is not JSON, and plain text', () => {
    const sse = `event: token\ndata: Key ghp_EXAMPLEexam\n\nevent: token\ndata: pleEXAMPLEexample01234567\n\n`;
    expect(replay(sse).output).toBe(
      `event: token\ndata: Key ${REDACTED}\n\nevent: token\ndata: \n\n`,
    );
    const text = `Key ${SECRET} — done.`;
    expect(replay(text, [...text]).output).toBe(scanText(pack, text).output);
  });

  it('SSE data that is not JSON: for any text and any split into events, the page reads the guarded text', () => {
    // Issue 18 (an EventSource no adapter claims): continuity per event type, whatever
    // held text a later event releases, lines included.
    const readData = (sse: string) =>
      sse
        .split('\n\n')
        .filter((block) => block !== '')
        .map((block) =>
          block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
            .join('\n'),
        )
        .join('');
    const isJson = (piece: string) => {
      try {
        JSON.parse(piece);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(textArbitrary(builtinPackJson()), cutsArbitrary, (text, cuts) => {
        const pieces = cut(text, cuts);
        fc.pre(!text.includes('\r') && !pieces.some(isJson));
        const expected = scanText(pack, text);
        fc.pre(!expected.blocked);
        const sse = pieces
          .map(
            (piece) =>
              `event: piece\n${piece
                .split('\n')
                .map((l) => `data: ${l}\n`)
                .join('')}\n`,
          )
          .join('');
        const result = replay(sse, [...sse]);
        expect(result.issues).toEqual([]);
        expect(readData(result.output)).toBe(expected.output);
      }),
      { numRuns: 150 },
    );
    // Each run replays the body a character at a time: seconds on a loaded machine.
  }, 60_000);

  it('an event of a terminal type (`event: end`) decides what was held: it goes out before the body ends', () => {
    const rewriter = new StreamRewriter(genericAdapter, pack);
    const piece = (text: string) => `event: piece\ndata: ${text}\n\n`;
    const first =
      piece('Key ghp_EXAMPLEexam') + piece('pleEXAMPLEexample01234567') + piece(' Thanks');
    // Without a terminal event, the tail of the text may be held (the body is still open).
    const open = rewriter.push(first);
    const ended = rewriter.push('event: end\ndata: done\n\n');
    expect(open + ended).toBe(
      piece(`Key ${REDACTED}`) + piece('') + piece(' Thanks') + 'event: end\ndata: done\n\n',
    );
    // A later answer on the same stream: its own guard streams, a split secret redacted whole.
    const second = rewriter.push(
      piece('Again ghp_EXAMPLE') +
        piece('exampleEXAMPLEexample01234567.') +
        'event: done\ndata: {"ok":"yes"}\n\n',
    );
    expect(second).toBe(
      piece(`Again ${REDACTED}`) + piece('.') + 'event: done\ndata: {"ok":"yes"}\n\n',
    );
    expect(rewriter.end()).toBe('');
  });

  it('SSE JSON data that says {"done":true} ends the answer the same way', () => {
    const rewriter = new StreamRewriter(genericAdapter, pack);
    const message = (json: unknown) => `data: ${JSON.stringify(json)}\n\n`;
    const out =
      rewriter.push(message({ out: 'Key ghp_EXAMPLEexam' })) +
      rewriter.push(message({ out: 'pleEXAMPLEexample01234567 Thanks' })) +
      rewriter.push(message({ done: true, note: 'fin' }));
    expect(out).toBe(
      message({ out: `Key ${REDACTED}` }) +
        message({ out: ' Thanks' }) +
        message({ done: true, note: 'fin' }),
    );
    // `"done": true` in a string, or `done: false`, is no end: no guard stream ends there.
    const endsOf = (after: string) => {
      const session = genericAdapter.open();
      const frames = new StructuralFramer().push(message({ out: 'Hello' }) + after);
      return frames.map((frame) => session.decode(frame).ends ?? []);
    };
    expect(endsOf(message({ note: 'the task is "done": true' }))).toEqual([[], []]);
    expect(endsOf(message({ done: false }))).toEqual([[], []]);
    expect(endsOf(message({ done: true }))).toEqual([[], ['sse:message/out']]);
  });

  it('data that reads "done" is the answer’s text, not an end: continuity holds across it', () => {
    const piece = (text: string) => `event: piece\ndata: ${text}\n\n`;
    const body = piece('Key ghp_EXAMPLEexam') + piece('done') + piece('pleEXAMPLEexample01234567');
    // "done" joins the text, so the token is broken and nothing matches: byte for byte.
    expect(replay(body).output).toBe(body);
    const split =
      piece('Key ghp_EXAMPLEexam') +
      'event: message\ndata: done\n\n' +
      piece('pleEXAMPLEexample01234567');
    expect(replay(split).output).toBe(
      piece(`Key ${REDACTED}`) + 'event: message\ndata: done\n\n' + piece(''),
    );
  });

  it('a body that only opens like SSE: lines no SSE reader would show are guarded as text', () => {
    const body = `data: hello\n\nHere is the key:\n${SECRET}\n\n: a comment\n\nevent: x\nid: 1\n\n`;
    const result = replay(body);
    expect(result.output).toBe(body.replace(SECRET, REDACTED));
  });

  it('guards every string field, duplicated keys included, and only changes string literals', () => {
    const body = `{"a":{"b":[1,"x ${SECRET}",true]},"a":"${SECRET}" , "n":null}`;
    const result = replay(body);
    expect(result.output).toBe(`{"a":{"b":[1,"x ${REDACTED}",true]},"a":"${REDACTED}" , "n":null}`);
  });

  it('is byte-identical when nothing matches, for every framing', () => {
    const bodies = [
      fixture('openai-chat/benign-crlf.sse'),
      fixture('anthropic/benign.sse'),
      '\uFEFF{"x":"caf\\u00e9 \\"q\\"","y":[1.5e3,-0,true,null]}\r\n',
      '{"a":"1"}\n{"a":"2"}\n\n{"a":"3"}',
      `: ${'p'.repeat(3000)}\n\ndata: {"status":"connected"}\n\ndata: plain\n\n`,
      '0:"hello"\r\n1:[1,2]\r\nno prefix here\r\n',
      'Just plain text, nothing to see.\n',
      '{"unterminated": "yes',
      '   \n\t',
    ];
    for (const body of bodies) {
      const result = replay(body);
      expect(result.output).toBe(body);
      expect(result.events).toEqual([]);
    }
  });

  it('a block in a lone JSON document leaves valid JSON with its strings emptied', () => {
    const body = `{"reply":"${SECRET}","n":1}`;
    const result = replay(body, [body], blockingPack('github-pat'));
    expect(result.blocked).toBe(true);
    expect(JSON.parse(result.output)).toEqual({ reply: '', n: 1 });
  });
});

describe('an answer that cannot be decoded (issue 18 §1)', () => {
  it('binary: reported with a typed error, nothing of it reaches the page', () => {
    const body = '\u0000\u0000\u0000\u0000\u0012\n\u0010Key ghp_EXAMPLEexample';
    const result = replay(body);
    expect(result.output).toBe('');
    expect(result.blocked).toBe(true);
    expect(result.issues).toEqual(['undecodable']);
    expect(result.events).toEqual([{ channel: '', type: 'error', rule: UNDECODABLE_RULE }]);
    // Bytes that are not UTF-8 decode to U+FFFD: the same.
    expect(replay('\uFFFD\uFFFDPNG').blocked).toBe(true);
  });
});

describe('the JSON string scanner', () => {
  it('finds every string value with its path, and splices only changed ones', () => {
    const text = ' {"a":[{"b":"x"},"y\\u0041"],"c":{"d":"z"},"e":1} ';
    const strings = scanJsonStrings(text);
    expect(strings?.map((s) => [s.path, s.value])).toEqual([
      [['a', 0, 'b'], 'x'],
      [['a', 1], 'yA'],
      [['c', 'd'], 'z'],
    ]);
    expect(spliceJsonStrings(text, strings!, ['x', 'yA', 'Z'])).toBe(
      ' {"a":[{"b":"x"},"y\\u0041"],"c":{"d":"Z"},"e":1} ',
    );
  });

  it.each(['', '{', '{"a":1,}', '[1 2]', '{"a" 1}', '"x" "y"', '{"a":"\n"}', 'nul'])(
    'rejects %j',
    (text) => {
      expect(scanJsonStrings(text)).toBeNull();
    },
  );
});
