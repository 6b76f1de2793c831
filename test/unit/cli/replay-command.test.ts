import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { adapterByFormat } from '../../../src/core/wire/adapter-registry.ts';
import { captureProbe, sniffContentType } from '../../../src/core/wire/capture-format.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import type { WireAdapter, WireFormat } from '../../../src/core/wire/wire-event.ts';
import {
  chunkingsFor,
  compareChunkings,
  comparisonLine,
} from '../../../src/cli/chunking-comparison.ts';
import { harContentSpans } from '../../../src/cli/har-content-spans.ts';
import { lineAndColumn } from '../../../src/cli/har-capture.ts';
import { replayHelp } from '../../../src/cli/help-text.ts';
import { runCsg } from './run-csg.ts';
import { blockingPack, githubPat } from './synthetic-secrets.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;
const corePack = getCorePack();

const fixture = (path: string): string =>
  new URL(`../../fixtures/${path}`, import.meta.url).pathname;
const fixtureText = (path: string): string => readFileSync(fixture(path), 'utf8');

const OPENAI_SECRET = 'wire/openai-chat/secret-split.sse';
const OPENAI_BENIGN = 'wire/openai-chat/benign-crlf.sse';
const ANTHROPIC_SECRET = 'wire/anthropic/secret-split.sse';
const ANTHROPIC_BENIGN = 'wire/anthropic/benign.sse';
const HAR = 'replay/devtools-two-streams.har';
const STOP_WORD = 'replay/openai-chat-stop-word.sse';
const ODD_FRAME = 'replay/openai-chat-odd-frame.sse';

function adapter(format: WireFormat): WireAdapter {
  const found = adapterByFormat(format);
  if (found === undefined) throw new Error(`no adapter for ${format}`);
  return found;
}

/** What the library replay gives for a body: the reference for the CLI's output. */
function expectedReplay(format: WireFormat, text: string, pack = corePack) {
  return replayBody(adapter(format), pack, [text]);
}

/** A one-line usage message: `csg: …`, no stack trace, nothing on stdout. */
function expectUsageError(run: { code: number | null; out: string; stderr: string }): void {
  expect(run.code).toBe(2);
  expect(run.out).toBe('');
  expect(run.stderr).toMatch(/^csg: [^\n]+\n$/);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

interface HarShape {
  log: {
    entries: {
      request: { method: string; url: string };
      response: { content: { size: number; mimeType: string; text?: string; encoding?: string } };
    }[];
  };
}

const parseHar = (text: string): HarShape => JSON.parse(text) as HarShape;

function bodyOf(har: HarShape, index: number): string {
  const content = har.log.entries[index]?.response.content;
  if (content?.text === undefined) throw new Error(`entry ${index} has no text`);
  return content.encoding === 'base64'
    ? Buffer.from(content.text, 'base64').toString('utf8')
    : content.text;
}

describe('csg replay: a raw response body', () => {
  it(
    'redacts a secret split across SSE events and writes exactly the re-serialised stream',
    async () => {
      const text = fixtureText(OPENAI_SECRET);
      const expected = expectedReplay('openai-chat', text);
      expect(expected.output).toContain('[redacted:github-pat]');
      const run = await runCsg(['replay', fixture(OPENAI_SECRET)]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.equals(Buffer.from(expected.output, 'utf8'))).toBe(true);
      expect(run.out).not.toContain('ghp_EXAMPLEexam');
      expect(run.out).not.toContain('pleEXAMPLEexample01234567');
      // The same frames: one `data:` per input event, tool-call deltas untouched.
      expect(run.out.split('\n\n').length).toBe(text.split('\n\n').length);
      expect(run.out).toContain('"arguments":"{\\"city\\":\\"Paris\\"}"');
    },
    T,
  );

  it(
    'reads "-" (standard input) like a file',
    async () => {
      const text = fixtureText(ANTHROPIC_SECRET);
      const run = await runCsg(['replay', '-'], { stdin: text });
      expect(run.code).toBe(0);
      expect(run.out).toBe(expectedReplay('anthropic', text).output);
      expect(run.out).toContain('[redacted:github-pat]');
    },
    T,
  );

  it(
    'auto-detects the format: the same output as --format',
    async () => {
      const cases = [
        [OPENAI_SECRET, 'openai-chat'],
        [ANTHROPIC_SECRET, 'anthropic'],
        [OPENAI_BENIGN, 'openai-chat'],
      ] as const;
      const runs = await Promise.all(
        cases.map(([path, format]) =>
          Promise.all([
            runCsg(['replay', fixture(path)]),
            runCsg(['replay', fixture(path), '--format', format]),
          ]),
        ),
      );
      for (const [auto, forced] of runs) {
        expect(auto.code).toBe(0);
        expect(forced.code).toBe(0);
        expect(auto.stdout.equals(forced.stdout)).toBe(true);
      }
      const explicitAuto = await runCsg(['replay', fixture(OPENAI_SECRET), '--format=auto']);
      expect(explicitAuto.stdout.equals(runs[0]?.[1].stdout ?? Buffer.alloc(0))).toBe(true);
    },
    T,
  );

  it(
    'is byte-identical to the capture when nothing matches (CRLF framing, keep-alive comments)',
    async () => {
      const paths = [OPENAI_BENIGN, ANTHROPIC_BENIGN];
      const runs = await Promise.all(paths.map((path) => runCsg(['replay', fixture(path)])));
      for (const [i, run] of runs.entries()) {
        const path = paths[i] as string;
        expect(run.code).toBe(0);
        expect(run.stderr).toBe('');
        expect(run.stdout.equals(readFileSync(fixture(path)))).toBe(true);
      }
    },
    T,
  );

  it(
    'guards a JSON (stream: false) answer, detected or forced with --format',
    async () => {
      const body = JSON.stringify({
        id: 'chatcmpl-REPLAY8',
        object: 'chat.completion',
        created: 1764400200,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: `the token is ${githubPat()}.` },
            finish_reason: 'stop',
          },
        ],
      });
      const file = temp.write('answer.json', body);
      const [auto, forced] = await Promise.all([
        runCsg(['replay', file]),
        runCsg(['replay', file, '--format', 'openai-chat']),
      ]);
      expect(auto.code).toBe(0);
      expect(auto.out).toContain('the token is [redacted:github-pat].');
      expect(auto.out).not.toContain(githubPat());
      expect(forced.out).toBe(auto.out);
    },
    T,
  );

  it(
    '--url names the adapter of an endpoint-only body; --format picks the adapter whose framing fits',
    async () => {
      // An Ollama `stream: false` answer: JSON that only its endpoint identifies.
      const body = JSON.stringify({
        model: 'llama3.2',
        created_at: '2026-01-15T10:00:00.000000Z',
        message: { role: 'assistant', content: `Your key: ${githubPat()} (keep it).` },
        done_reason: 'stop',
        done: true,
      });
      const file = temp.write('ollama-answer.json', body);
      const [bare, withUrl, forced, onHar] = await Promise.all([
        runCsg(['replay', file]),
        runCsg(['replay', file, '--url', 'http://127.0.0.1:11434/api/chat']),
        runCsg(['replay', file, '--format', 'ollama']),
        runCsg(['replay', fixture(HAR), '--url', 'http://127.0.0.1:11434/api/chat']),
      ]);
      // Without the URL its structure is enough (`model`, `message`, `done`: an Ollama line):
      // the generic adapter reads it with the Ollama adapter (issue 18 §1).
      expect(bare.code).toBe(0);
      expect(withUrl.code).toBe(0);
      expect(withUrl.out).toContain('Your key: [redacted:github-pat] (keep it).');
      expect(forced.out).toBe(withUrl.out);
      expect(bare.out).toBe(withUrl.out);
      expectUsageError(onHar);
    },
    T,
  );

  it(
    'exits 3 when the stream is blocked, ending it the way the provider ends a refusal',
    async () => {
      const pack = temp.writeJson('block-pack.json', blockingPack);
      const text = fixtureText(STOP_WORD);
      const expected = expectedReplay('openai-chat', text, compilePack(blockingPack));
      expect(expected.blocked).toBe(true);
      const run = await runCsg(['replay', fixture(STOP_WORD), '--rules', pack]);
      expect(run.code).toBe(3);
      expect(run.out).toBe(expected.output);
      expect(run.out).not.toContain('STOP4');
      expect(run.out).not.toContain('more text follows');
      expect(run.out).toMatch(/"finish_reason":"content_filter"\}\]\}\n\ndata: \[DONE\]\n\n$/);
    },
    T,
  );

  it(
    'passes an unrecognised frame through and reports it on stderr',
    async () => {
      const run = await runCsg(['replay', fixture(ODD_FRAME)]);
      expect(run.code).toBe(0);
      expect(run.out).toContain('data: this frame is not JSON\n\n');
      expect(run.out).toContain('[redacted:github-pat]');
      expect(run.stderr).toBe(
        'csg: stream 0 openai-chat: unrecognised-frame: openai-chat: data is not a JSON object\n',
      );
    },
    T,
  );
});

describe('csg replay: a HAR file', () => {
  it(
    'guards every LLM stream (base64 too), keeps every other byte, lists the rest as unguarded',
    async () => {
      const original = fixtureText(HAR);
      const run = await runCsg(['replay', fixture(HAR)]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe(
        'csg: unguarded: GET http://127.0.0.1:8080/static/app.js (application/javascript); ' +
          'closest: none (no format matches its URL, body or events)\n',
      );
      const input = parseHar(original);
      const output = parseHar(run.out); // valid JSON
      expect(output.log.entries).toHaveLength(3);

      const openai = expectedReplay('openai-chat', bodyOf(input, 0));
      const anthropic = expectedReplay('anthropic', bodyOf(input, 2));
      expect(bodyOf(output, 0)).toBe(openai.output);
      expect(bodyOf(output, 2)).toBe(anthropic.output);
      expect(output.log.entries[2]?.response.content.encoding).toBe('base64');
      expect(output.log.entries[2]?.response.content.text).toMatch(/^[A-Za-z0-9+/]+=*$/);
      for (const index of [0, 2]) {
        expect(bodyOf(output, index)).toContain('[redacted:github-pat]');
        expect(bodyOf(output, index)).not.toContain('ghp_EXAMPLEexam');
        expect(output.log.entries[index]?.response.content.size).toBe(
          Buffer.byteLength(bodyOf(output, index)),
        );
      }
      // The unrelated entry is untouched, and so is everything but the two texts and sizes.
      expect(output.log.entries[1]).toEqual(input.log.entries[1]);
      const outLines = run.out.split('\n');
      const inLines = original.split('\n');
      expect(outLines).toHaveLength(inLines.length);
      const changed = inLines
        .map((line, i) => (line === outLines[i] ? null : line.trim().split(':')[0]))
        .filter((key) => key !== null);
      expect(changed).toEqual(['"size"', '"text"', '"size"', '"text"']);
    },
    T,
  );

  it(
    '--format har gives the same; a HAR whose streams are benign comes back byte for byte',
    async () => {
      const [auto, forced] = await Promise.all([
        runCsg(['replay', fixture(HAR)]),
        runCsg(['replay', '--format', 'har', fixture(HAR)]),
      ]);
      expect(forced.code).toBe(0);
      expect(forced.stdout.equals(auto.stdout)).toBe(true);

      const har = parseHar(fixtureText(HAR));
      const first = har.log.entries[0]?.response.content;
      const third = har.log.entries[2]?.response.content;
      if (first === undefined || third === undefined) throw new Error('fixture shape');
      first.text = fixtureText(OPENAI_BENIGN);
      third.text = readFileSync(fixture(ANTHROPIC_BENIGN)).toString('base64');
      const benign = JSON.stringify(har, null, 2);
      const file = temp.write('benign.har', benign);
      const run = await runCsg(['replay', file]);
      expect(run.code).toBe(0);
      expect(run.out).toBe(benign);
    },
    T,
  );

  it(
    '--events numbers the streams by HAR entry',
    async () => {
      const events = temp.path('har-events.jsonl');
      const run = await runCsg(['replay', fixture(HAR), '--events', events]);
      expect(run.code).toBe(0);
      const records = readFileSync(events, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.map((r) => [r.stream, r.channel, r.rule])).toEqual([
        [0, 'choice:0', 'github-pat'],
        [2, 'block:1', 'github-pat'],
        [2, 'block:1', 'markdown-image-exfil'],
      ]);
    },
    T,
  );

  it(
    '--compare prints one line per guarded stream',
    async () => {
      const run = await runCsg(['replay', fixture(HAR), '--compare']);
      expect(run.code).toBe(0);
      expect(run.out).toBe(
        'stream 0 openai-chat: chunked = whole (1 event)\n' +
          'stream 2 anthropic: chunked = whole (2 events)\n',
      );
    },
    T,
  );
});

describe('csg replay --events', () => {
  it(
    'writes one JSON line per guard event with stream and channel, then the wire issues',
    async () => {
      const events = temp.path('events.jsonl');
      const run = await runCsg(['replay', fixture(ODD_FRAME), '--events', events]);
      expect(run.code).toBe(0);
      const lines = readFileSync(events, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      const match = JSON.parse(lines[0] as string) as Record<string, unknown>;
      expect(Object.keys(match)).toEqual([
        'stream',
        'channel',
        'rule',
        'action',
        'start',
        'end',
        'kind',
        'type',
        'pack',
      ]);
      expect(match).toMatchObject({
        stream: 0,
        channel: 'choice:0',
        rule: 'github-pat',
        action: 'redact',
        start: 18,
        end: 58,
        kind: 'secret',
        type: 'match',
        pack: `${corePack.name}@${corePack.version}`,
      });
      expect(JSON.parse(lines[1] as string)).toEqual({
        type: 'wire-issue',
        stream: 0,
        kind: 'unrecognised-frame',
        detail: 'openai-chat: data is not a JSON object',
      });
    },
    T,
  );

  it(
    'writes an empty file when nothing matches, and fails with exit 2 on an unwritable path',
    async () => {
      const events = temp.path('none.jsonl');
      const ok = await runCsg(['replay', fixture(OPENAI_BENIGN), '--events', events]);
      expect(ok.code).toBe(0);
      expect(readFileSync(events, 'utf8')).toBe('');
      const bad = await runCsg([
        'replay',
        fixture(OPENAI_BENIGN),
        '--events',
        temp.path('no/such/dir/e.jsonl'),
      ]);
      expectUsageError(bad);
      expect(bad.stderr).toMatch(/^csg: cannot write events to .*: /);
    },
    T,
  );
});

describe('csg replay --compare', () => {
  it(
    'prints only the comparison line and exits 0 when chunked = whole',
    async () => {
      const [secret, benign] = await Promise.all([
        runCsg(['replay', fixture(OPENAI_SECRET), '--compare']),
        runCsg(['replay', fixture(ANTHROPIC_BENIGN), '--compare']),
      ]);
      expect(secret.code).toBe(0);
      expect(secret.out).toBe('stream 0 openai-chat: chunked = whole (1 event)\n');
      expect(benign.out).toBe('stream 0 anthropic: chunked = whole (0 events)\n');
    },
    T,
  );

  it(
    'still exits 3 for a blocked stream (chunked = whole, blocked)',
    async () => {
      const pack = temp.writeJson('block-pack-2.json', blockingPack);
      const run = await runCsg(['replay', fixture(STOP_WORD), '--compare', '--rules', pack]);
      expect(run.code).toBe(3);
      expect(run.out).toBe('stream 0 openai-chat: chunked = whole (1 event, blocked)\n');
    },
    T,
  );

  it('tries per-unit chunkings and, for well-formed text, 5-byte UTF-8 chunks', () => {
    const text = 'a😀é';
    const labels = chunkingsFor(text).map((c) => c.label);
    expect(labels).toEqual(['1', '3', '17', '5 bytes']);
    for (const chunking of chunkingsFor(text)) {
      expect([...chunking.chunks(text)].join('')).toBe(text);
    }
    expect([...(chunkingsFor(text)[0]?.chunks(text) ?? [])]).toHaveLength(text.length);
    // A lone surrogate has no bytes: no byte chunking then.
    expect(chunkingsFor('x\ud83d').map((c) => c.label)).toEqual(['1', '3', '17']);
  });

  it('reports the first difference: a chunk-dependent adapter DIFFERS', () => {
    // A broken framer that keeps only the first character of every network chunk.
    const lossy: WireAdapter = {
      id: 'lossy-test',
      format: 'openai-chat',
      framing: 'sse',
      detect: () => false,
      createFramer: () => ({
        push: (text) => (text.length > 0 ? [{ raw: text.slice(0, 1) }] : []),
        end: () => [],
      }),
      open: () => ({
        decode: (frame) => ({ frame, slots: [], render: () => frame.raw }),
        blockEnding: () => '',
      }),
    };
    const comparison = compareChunkings(lossy, corePack, 'abcdef');
    expect(comparison.difference).toEqual({
      chunking: '1',
      what: 'output 1 vs 6 characters, first difference at offset 1',
    });
    expect(comparisonLine(4, 'openai-chat', comparison)).toBe(
      'stream 4 openai-chat: DIFFERS at chunking 1: output 1 vs 6 characters, first difference at offset 1',
    );
  });
});

describe('csg replay: errors', () => {
  it(
    'bad usage: no CAPTURE, an unknown option, two captures',
    async () => {
      const runs = await Promise.all([
        runCsg(['replay']),
        runCsg(['replay', fixture(OPENAI_SECRET), '--chunks']),
        runCsg(['replay', fixture(OPENAI_SECRET), fixture(HAR)]),
        runCsg(['replay', fixture(OPENAI_SECRET), '--format']),
      ]);
      for (const run of runs) expectUsageError(run);
      expect(runs[0]?.stderr).toBe(
        'csg: missing CAPTURE (a response body or HAR file, or "-" for standard input)\n',
      );
    },
    T,
  );

  it(
    'an unreadable file',
    async () => {
      const run = await runCsg(['replay', temp.path('missing.sse')]);
      expectUsageError(run);
      expect(run.stderr).toMatch(/^csg: cannot read .*missing\.sse: no such file\n$/);
      expectUsageError(await runCsg(['replay', temp.dir]));
    },
    T,
  );

  it(
    'a body whose format cannot be recognised',
    async () => {
      const bodies = ['just some text\n', '{"hello":"world"}', ''];
      const runs = await Promise.all(
        bodies.map((body) => runCsg(['replay', '-'], { stdin: body })),
      );
      for (const run of runs) {
        expectUsageError(run);
        expect(run.stderr).toBe(
          'csg: cannot recognise the capture format (closest: none (no format matches its ' +
            'URL, body or events)); use --format\n',
        );
      }
    },
    T,
  );

  it(
    'an unknown --format lists the known ones',
    async () => {
      const run = await runCsg(['replay', fixture(OPENAI_SECRET), '--format', 'teletype']);
      expectUsageError(run);
      expect(run.stderr).toMatch(/^csg: unknown --format "teletype" \(one of: auto, har, .*\)\n$/);
      expect(run.stderr).toContain('openai-chat');
      expect(run.stderr).toContain('anthropic');
    },
    T,
  );

  it(
    'a malformed HAR names the line and column',
    async () => {
      const broken = '{\n  "log": {\n    "entries": [\n      {"request": }\n    ]\n  }\n}\n';
      const file = temp.write('broken.har', broken);
      const run = await runCsg(['replay', file]);
      expectUsageError(run);
      expect(run.stderr).toMatch(/^csg: malformed HAR .*broken\.har: .* at line 4 column 19\n$/);

      const truncated = temp.write('truncated.har', '{"log": {"entries": [');
      const cut = await runCsg(['replay', truncated, '--format', 'har']);
      expectUsageError(cut);
      expect(cut.stderr).toMatch(/at line 1 column 22\n$/);

      const notHar = await runCsg(['replay', '--format', 'har', fixture(OPENAI_SECRET)]);
      expectUsageError(notHar);
      expect(notHar.stderr).toMatch(/^csg: malformed HAR .*: .* at line 1 column 1\n$/);

      const noEntries = temp.write('empty.har', '{"log": {"version": "1.2"}}');
      const empty = await runCsg(['replay', noEntries]);
      expectUsageError(empty);
      expect(empty.stderr).toMatch(/no "log\.entries" array\n$/);
    },
    T,
  );

  it(
    'help',
    async () => {
      const help = await runCsg(['replay', '--help']);
      expect(help.code).toBe(0);
      expect(help.out).toBe(replayHelp);
      const topic = await runCsg(['help', 'replay']);
      expect(topic.out).toBe(replayHelp);
    },
    T,
  );
});

describe('capture format sniffing and HAR spans', () => {
  it('sniffs SSE, NDJSON, JSON and Gemini web from the first characters', () => {
    expect(sniffContentType(fixtureText(OPENAI_SECRET))).toBe('text/event-stream');
    expect(sniffContentType(fixtureText(OPENAI_BENIGN))).toBe('text/event-stream');
    expect(sniffContentType('\ufeffevent: message_start\ndata: {}\n\n')).toBe('text/event-stream');
    expect(sniffContentType('{"a":1}\n{"a":2}\n')).toBe('application/x-ndjson');
    expect(sniffContentType('{"a":1}\n')).toBe('application/json');
    expect(sniffContentType('{\n  "a": 1\n}\n')).toBe('application/json');
    expect(sniffContentType('[{"a":1}]')).toBe('application/json');
    expect(sniffContentType(')]}\'\n\n25\n[["e"]]')).toBe('application/json');
    expect(sniffContentType('hello')).toBe('text/plain');
  });

  it('builds a probe: recorded type when given, else sniffed; head is the first 1 KB', () => {
    const text = 'data: ' + 'x'.repeat(5000);
    const probe = captureProbe({ text });
    expect(probe).toEqual({ url: '', contentType: 'text/event-stream', head: text.slice(0, 1024) });
    const recorded = captureProbe({
      text,
      url: 'https://h/v1/chat/completions',
      method: 'POST',
      contentType: 'Text/Event-Stream; charset=utf-8',
    });
    expect(recorded.contentType).toBe('text/event-stream; charset=utf-8');
    expect(recorded.method).toBe('POST');
  });

  it('finds every entry’s content text and size in one pass', () => {
    const har = fixtureText(HAR);
    const spans = harContentSpans(har);
    expect([...spans.keys()]).toEqual([0, 1, 2]);
    const parsed = parseHar(har);
    for (const [index, at] of spans) {
      const content = parsed.log.entries[index]?.response.content;
      expect(JSON.parse(har.slice(at.text?.start, at.text?.end))).toBe(content?.text);
      expect(Number(har.slice(at.size?.start, at.size?.end))).toBe(content?.size);
    }
    const tricky =
      '\ufeff{"x":"}\\"{[","log":{"entries":[{"response":{"content":{"text":"a\\\\"}}}]}}';
    const found = harContentSpans(tricky).get(0)?.text;
    expect(tricky.slice(found?.start, found?.end)).toBe('"a\\\\"');
  });

  it('turns a parse position into a line and column', () => {
    expect(lineAndColumn('ab\ncd\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('ab\n', 3)).toEqual({ line: 2, column: 1 });
  });
});
