/**
 * Reporting from the guard (issue 4): every guarded stream gets its own id and
 * reports its events (with matched text), holding transitions, wire issues and
 * exactly one end. How each way a stream can end is reported: guard-host.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createGuardTransform } from '../../../src/core/guard/guard-stream.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { createGuardReporter } from '../../../src/content/guard-reporter.ts';
import type { GuardReport } from '../../../src/protocol/guard-reports.ts';
import { UNDECODABLE_RULE } from '../../../src/core/wire/wire-event.ts';
import { randomId } from '../../../src/protocol/random-id.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';

const pack = compilePack(engineTestPack);

function recorder() {
  const sent: GuardReport[] = [];
  let n = 0;
  const reporter = createGuardReporter(
    (m) => sent.push(m),
    () => `s${++n}`,
  );
  return { sent, reporter };
}

describe('randomId', () => {
  it('is 32 hex digits from the random source, and ids differ', () => {
    const id = randomId((bytes) => crypto.getRandomValues(bytes));
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(randomId((b) => crypto.getRandomValues(b))).not.toBe(id);
    expect(randomId((b) => b.fill(255))).toBe('f'.repeat(32));
  });
});

describe('createGuardReporter', () => {
  it('reports guard events with their matched text', async () => {
    const { sent, reporter } = recorder();
    const stream = reporter.openStream('in', 'plain-text');
    const transform = createGuardTransform(pack, {
      attachMatchedText: true,
      onEvent: (e) => stream.guardEvents([e]),
    });
    const out = await new Response(
      new Response('a tok_abcd1234 b')
        .body!.pipeThrough(new TextDecoderStream())
        .pipeThrough(transform)
        .pipeThrough(new TextEncoderStream()),
    ).text();
    expect(out).toBe('a [redacted:tok] b');
    expect(sent).toHaveLength(1);
    const message = sent[0] as Extract<GuardReport, { type: 'guard-events' }>;
    expect(message.stream).toEqual({
      streamId: 's1',
      direction: 'in',
      format: 'plain-text',
      conversationId: '',
      turnId: '',
    });
    expect(message.events).toEqual([
      expect.objectContaining({
        type: 'match',
        rule: 'tok',
        action: 'redact',
        matched: 'tok_abcd1234',
      }),
    ]);
  });

  it('gives each stream its own id', () => {
    const { reporter } = recorder();
    expect(reporter.openStream('in', 'a').streamId).not.toBe(
      reporter.openStream('in', 'a').streamId,
    );
  });

  it('names the format a generic stream turned out to be in, from then on (issue 18 §1)', () => {
    const { sent, reporter } = recorder();
    const stream = reporter.openStream('in', 'generic');
    const event = { type: 'error', message: 'm', at: 0, pack: 'p' } as const;
    stream.guardEvents([event]);
    stream.setFormat('openai-chat');
    stream.guardEvents([event]);
    expect(sent.map((m) => (m.type === 'guard-events' ? m.stream.format : ''))).toEqual([
      'generic',
      'openai-chat',
    ]);
  });

  it('sends holding only on transitions, clears it at the end, and ends once', () => {
    const { sent, reporter } = recorder();
    const stream = reporter.openStream('in', 'openai-chat');
    stream.holding(false);
    stream.holding(true);
    stream.holding(true);
    stream.end('complete');
    stream.end('failed');
    stream.holding(true);
    expect(sent).toEqual([
      { v: 1, type: 'holding', streamId: 's1', holding: true },
      { v: 1, type: 'holding', streamId: 's1', holding: false },
      { v: 1, type: 'stream-end', streamId: 's1', outcome: 'complete' },
    ]);
  });

  it('tells, once at the end of an answer, the format it settled on and whether it was decoded (issue 18)', () => {
    const { sent, reporter } = recorder();
    const generic = reporter.openStream('in', 'generic', { answer: true });
    generic.setFormat('openai-chat');
    generic.end('complete');
    generic.end('aborted');
    const binary = reporter.openStream('in', 'generic', { answer: true });
    binary.guardEvents([
      { type: 'error', rule: UNDECODABLE_RULE, message: 'undecodable: binary', at: 0, pack: 'p' },
    ]);
    binary.end(binary.impliedOutcome);
    const failed = reporter.openStream('in', 'anthropic', { answer: true });
    failed.guardEvents([{ type: 'error', message: 'validator threw', at: 3, pack: 'p' }]);
    failed.end('failed');
    // Not answers: a failure reported before any guard existed, and a request.
    reporter.openStream('in', 'fetch').end('failed');
    reporter.openStream('out', 'openai-chat', { answer: true }).end('complete');
    expect(sent.filter((m) => m.type === 'answer-guarded' || m.type === 'stream-end')).toEqual([
      { v: 1, type: 'answer-guarded', streamId: 's1', format: 'openai-chat', decoded: true },
      { v: 1, type: 'stream-end', streamId: 's1', outcome: 'complete' },
      { v: 1, type: 'answer-guarded', streamId: 's2', format: 'generic', decoded: false },
      { v: 1, type: 'stream-end', streamId: 's2', outcome: 'failed' },
      { v: 1, type: 'answer-guarded', streamId: 's3', format: 'anthropic', decoded: true },
      { v: 1, type: 'stream-end', streamId: 's3', outcome: 'failed' },
      { v: 1, type: 'stream-end', streamId: 's4', outcome: 'failed' },
      { v: 1, type: 'stream-end', streamId: 's5', outcome: 'complete' },
    ]);
  });

  it('derives the implied outcome from the events: block, then failure wins', () => {
    const { sent, reporter } = recorder();
    const stream = reporter.openStream('in', 'x');
    expect(stream.impliedOutcome).toBe('complete');
    const base = {
      type: 'match',
      rule: 'r',
      kind: 'secret',
      start: 0,
      end: 1,
      pack: 'p',
      matched: 'x',
    } as const;
    stream.guardEvents([{ ...base, action: 'flag' }]);
    expect(stream.impliedOutcome).toBe('complete');
    stream.guardEvents([{ ...base, action: 'block' }]);
    expect(stream.impliedOutcome).toBe('blocked');
    stream.wireIssue({ kind: 'render-failed', detail: 'bad frame' });
    expect(stream.impliedOutcome).toBe('failed');
    stream.guardEvents([]);
    expect(sent.map((m) => m.type)).toEqual(['guard-events', 'guard-events', 'wire-issue']);
  });
});
