import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { deepseekWeb } from '../../../src/core/wire/adapters/deepseek-web.ts';
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
const benign = fixture('deepseek-web/benign.sse');
const secret = fixture('deepseek-web/secret-split.sse');
const TOKEN = 'ghp_' + 'EXAMPLEexample'.repeat(2) + '01234567';

const blocking = blockingPack('github-pat');

// ---------------------------------------------------------------------------
// Reference decoder: reads the SSE with eventsource-parser and applies the
// p/o/v ops to the response object the way the page does (WIRE-FORMATS.md §4.3):
// APPEND/SET/BATCH, `-1` = last fragment, the sticky cursor, and bare strings
// after the opening object or a fragment APPEND going to the last fragment.
// ---------------------------------------------------------------------------

type Json = Record<string, unknown>;

interface PageState {
  root: { response?: { fragments: Json[]; status?: string } & Json };
  events: { event: string | undefined; data: string }[];
  finish: boolean;
  close: Json | undefined;
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isContent = (path: string) => /^response\/fragments\/-?\d+\/content$/.test(path);

function applyOp(root: Json, path: string, op: string, value: unknown): void {
  const o = op.toUpperCase();
  if (o === 'BATCH') {
    for (const sub of value as Json[]) {
      const subPath = `${path}/${sub.p as string}`;
      const subOp =
        (sub.o as string | undefined) ??
        (isContent(subPath) && typeof sub.v === 'string' ? 'APPEND' : 'SET');
      applyOp(root, subPath, subOp, sub.v);
    }
    return;
  }
  const keys = path.split('/');
  const last = keys.pop()!;
  let target: unknown = root;
  for (const key of keys) {
    target = Array.isArray(target)
      ? target[Number(key) < 0 ? target.length + Number(key) : Number(key)]
      : (target as Json)[key];
  }
  const t = target as Record<string, unknown>;
  if (o === 'SET') t[last] = value;
  else if (o === 'APPEND' || o === 'ADD') {
    const current = t[last];
    if (typeof current === 'string') t[last] = current + (value as string);
    else if (Array.isArray(current)) current.push(...(Array.isArray(value) ? value : [value]));
    else t[last] = value;
  } else throw new Error(`unknown op ${op}`);
}

function readPage(body: string): PageState {
  const state: PageState = { root: {}, events: [], finish: false, close: undefined };
  let lastP: string | undefined;
  let lastO: string | undefined;
  const parser = createParser({
    onEvent(e) {
      state.events.push({ event: e.event, data: e.data });
      const data = JSON.parse(e.data) as Json;
      if (e.event === 'finish') state.finish = true;
      if (e.event === 'close') state.close = data;
      if (!('v' in data || 'p' in data || 'o' in data)) return;
      let p = data.p as string | undefined;
      let o = data.o as string | undefined;
      if (p === undefined && o === undefined) {
        if (isObj(data.v) && isObj(data.v.response)) {
          state.root.response = structuredClone(data.v.response) as PageState['root']['response'];
          lastP = 'response';
          lastO = 'SET';
          return;
        }
        p = lastP;
        o = lastO;
        if (typeof data.v === 'string' && (p === 'response' || p === 'response/fragments')) {
          p = 'response/fragments/-1/content';
          o = 'APPEND';
        }
      } else {
        lastP = p ??= lastP;
        lastO = o ??= isContent(p!) && typeof data.v === 'string' ? 'APPEND' : 'SET';
      }
      applyOp(state.root as Json, p!, o!, data.v);
    },
  });
  parser.feed(body);
  return state;
}

const fragments = (state: PageState) => state.root.response?.fragments ?? [];
const shown = (state: PageState) =>
  fragments(state)
    .filter((f) => f.type === 'RESPONSE' || f.type === 'THINK')
    .map((f) => [f.type, f.content] as const);

// ---------------------------------------------------------------------------

describe('deepseek-web adapter', () => {
  it('passes a stream without matches through byte for byte', () => {
    const replay = wholeReplay(deepseekWeb, pack, benign);
    expect(replay.output).toBe(benign);
    expect(replay.issues).toEqual([]);
    const page = readPage(benign);
    expect(shown(page)).toEqual([
      [
        'RESPONSE',
        '你好！😊 Looks like a test of `ghp_` prefixes and a logo link [logo](https://img.example.org/logo.png)?\n\n无论如何，happy to help！✨',
      ],
    ]);
    expect(page.root.response?.status).toBe('FINISHED');
  });

  it('guards RESPONSE and THINK fragments (sticky cursor, CRLF); SEARCH results and the rest pass untouched', () => {
    const replay = wholeReplay(deepseekWeb, pack, secret);
    expect(replay.issues).toEqual([]);
    const original = readPage(secret);
    const guarded = readPage(replay.output);
    expect(guarded.events.map((e) => e.event)).toEqual(original.events.map((e) => e.event));

    const before = shown(original);
    const after = shown(guarded);
    expect(after.map(([type]) => type)).toEqual(['THINK', 'RESPONSE']);
    after.forEach(([, text], i) => {
      expect(text).toBe(scanText(pack, before[i]![1] as string).output);
      expect(text).not.toContain('EXAMPLEexam');
    });
    expect(after[1]![1]).toBe(
      'Your token [redacted:github-pat] should be rotated. Chart: [image blocked: collector.example.net] [citation:1] 😀 Done.',
    );
    // Non-text state is identical: search results (with the token), elapsed time set by a
    // continuation of a non-text cursor, status, usage, ids.
    const strip = (state: PageState) => {
      const response = structuredClone(state.root.response!);
      for (const f of response.fragments) if (f.type !== 'SEARCH') f.content = '<text>';
      return response;
    };
    expect(strip(guarded)).toEqual(strip(original));
    expect(fragments(guarded)[0]!.results).toEqual(fragments(original)[0]!.results);
    expect(JSON.stringify(fragments(guarded)[0])).toContain(TOKEN);
    expect(fragments(guarded)[1]!.elapsed_secs).toBe(2.5);
    expect(guarded.close).toEqual({ click_behavior: 'none', auto_resume: false });
    expect(replay.events.map((e) => [e.channel, (e.event as { rule: string }).rule])).toEqual([
      ['think:1', 'github-pat'],
      ['response:2', 'github-pat'],
      ['response:2', 'markdown-image-exfil'],
    ]);
    // The page reads responseText: an append-only document with CRLF kept.
    expect(replay.output.split('\r\n\r\n').length).toBe(secret.split('\r\n\r\n').length);
  });

  it('for any split of the wire bytes, the page receives the single-chunk result', async () => {
    for (const body of [secret, benign]) {
      const bytes = new TextEncoder().encode(body);
      const expected = wholeReplay(deepseekWeb, pack, body).output;
      await fc.assert(
        fc.asyncProperty(cutFractions(24), async (cuts) => {
          const out = await throughTransform(deepseekWeb, pack, splitBytes(bytes, cuts));
          expect(new TextDecoder().decode(out)).toBe(expected);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('a block in the reasoning ends in DeepSeek shape: FINISHED, finish, close without auto-resume', () => {
    const replay = replayBody(deepseekWeb, blocking, [secret]);
    expect(replay.blocked).toBe(true);
    const page = readPage(replay.output);
    expect(shown(page)).toEqual([['THINK', 'The user pasted ']]);
    expect(page.root.response?.status).toBe('FINISHED');
    expect(page.finish).toBe(true);
    expect(page.close).toEqual({ click_behavior: 'none', auto_resume: false });
    expect(page.events.slice(-3).map((e) => e.event)).toEqual([undefined, 'finish', 'close']);
    expect(replay.output.endsWith('\r\n\r\n')).toBe(true);
  });

  it('a block in the answer after a final status already went out adds only finish and close', () => {
    const body = secret
      .replace('The user pasted ghp_EXAM', 'The user pasted a key')
      .replace('PLEexampleEXAMPLEexample01234567 earlier', ' earlier')
      .replace(
        '{"p":"response/status","o":"SET","v":"FINISHED"}',
        `{"p":"response/fragments/-1/content","o":"APPEND","v":" again ${TOKEN}"}`,
      )
      .replace(
        '{"p":"accumulated_token_usage","v":249}',
        '{"p":"accumulated_token_usage","v":249},{"p":"status","v":"FINISHED"}',
      );
    const first = replayBody(deepseekWeb, blocking, [body]);
    expect(first.blocked).toBe(true);
    const page = readPage(first.output);
    expect(shown(page)[1]).toEqual(['RESPONSE', 'Your token ']);
    expect(page.root.response?.status).toBe('FINISHED');
    expect(page.finish && page.close !== undefined).toBe(true);

    const late = body
      .replace(`"content":"Your token ${TOKEN.slice(0, 15)}"`, '"content":"Your token x"')
      .replace(`{"v":"${TOKEN.slice(15)} should be rotated"}`, '{"v":" should be rotated"}');
    expect(late.split(TOKEN.slice(0, 15)).length).toBe(body.split(TOKEN.slice(0, 15)).length - 1);
    const second = replayBody(deepseekWeb, blocking, [late]);
    expect(second.blocked).toBe(true);
    const latePage = readPage(second.output);
    expect(shown(latePage)[1]![1]).toMatch(/ Done\. again $/);
    // The status went out in the BATCH before the block: no second status frame.
    expect(second.output.match(/"response\/status"/g)).toBeNull();
    expect(latePage.events.slice(-2).map((e) => e.event)).toEqual(['finish', 'close']);
  });

  it('a blocked stream is the same for any split of the wire bytes', async () => {
    const bytes = new TextEncoder().encode(secret);
    const expected = replayBody(deepseekWeb, blocking, [secret]).output;
    await fc.assert(
      fc.asyncProperty(cutFractions(16), async (cuts) => {
        const out = await throughTransform(deepseekWeb, blocking, splitBytes(bytes, cuts));
        expect(new TextDecoder().decode(out)).toBe(expected);
      }),
      { numRuns: 50 },
    );
  });

  it('reads the §4.3 example: a bare string right after the opening object goes to its fragment', () => {
    const body = [
      'event: ready\ndata: {"request_message_id":1,"response_message_id":2,"model_type":"default"}\n\n',
      'data: {"v":{"response":{"message_id":2,"parent_id":1,"status":"WIP","accumulated_token_usage":0,"fragments":[{"id":2,"type":"THINK","content":"我们","references":[],"stage_id":1}]}}}\n\n',
      `data: {"v":"需要 ${TOKEN.slice(0, 8)}"}\n\n`,
      `data: {"p":"response/fragments/-1/content","o":"APPEND","v":"${TOKEN.slice(8)} me think"}\n\n`,
      'data: {"p":"response/fragments/-1/elapsed_secs","o":"SET","v":1.2}\n\n',
      'data: {"p":"response/fragments","o":"APPEND","v":[{"id":3,"type":"RESPONSE","content":"42","references":[],"stage_id":1}]}\n\n',
      'data: {"v":" world"}\n\n',
      'data: {"p":"response","o":"BATCH","v":[{"p":"accumulated_token_usage","v":249},{"p":"quasi_status","v":"FINISHED"}]}\n\n',
      'data: {"p":"response/status","o":"SET","v":"FINISHED"}\n\n',
      'event: finish\ndata: {}\n\nevent: title\ndata: {"content":"量子纠缠简述"}\n\n',
      'event: close\ndata: {"click_behavior":"none","auto_resume":false}\n\n',
    ].join('');
    const replay = wholeReplay(deepseekWeb, pack, body);
    expect(replay.issues).toEqual([]);
    expect(shown(readPage(replay.output))).toEqual([
      ['THINK', '我们需要 [redacted:github-pat] me think'],
      ['RESPONSE', '42 world'],
    ]);
  });

  it('an unterminated last event (a dropped connection) is still guarded: the page parses it too', () => {
    const cut = secret.slice(0, secret.indexOf('{"v":"abc) [citation:1]') + 30);
    const tail = `data: {"v":" and ${TOKEN}"}`;
    const body = cut.slice(0, cut.lastIndexOf('data: ')) + tail;
    const replay = wholeReplay(deepseekWeb, pack, body);
    expect(replay.output.endsWith('data: {"v":" and [redacted:github-pat]"}')).toBe(true);
    // (The search results earlier carry the token by design: they pass through.)
    expect(replay.output.slice(replay.output.indexOf('"type":"THINK"'))).not.toContain(
      'EXAMPLEexam',
    );
  });

  it('an unknown event passes through unchanged and is reported', () => {
    const body = 'event: brand_new\ndata: {"x":1}\n\n';
    const replay = wholeReplay(deepseekWeb, pack, body);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'deepseek-web: event brand_new' },
    ]);
  });

  it('detects the completion family of endpoints', () => {
    const probe = (url: string, contentType = 'text/event-stream; charset=utf-8') => ({
      url,
      contentType,
      head: '',
    });
    for (const path of ['completion', 'regenerate', 'continue', 'edit_message', 'resume_stream']) {
      expect(deepseekWeb.detect(probe(`https://chat.deepseek.com/api/v0/chat/${path}`))).toBe(true);
    }
    expect(
      deepseekWeb.detect(
        probe('https://chat.deepseek.com/api/v0/chat/completion', 'application/json'),
      ),
    ).toBe(false);
    expect(deepseekWeb.detect(probe('https://api.deepseek.com/chat/completions'))).toBe(false);
    for (const body of [benign, secret]) {
      const raw = { url: '', contentType: 'text/event-stream', head: body.slice(0, 1024) };
      expect(deepseekWeb.detect(raw)).toBe(true);
    }
  });
});
