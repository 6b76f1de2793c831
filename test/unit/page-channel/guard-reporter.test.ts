/**
 * Reporting from the MAIN world (issue 4): every guarded stream gets its own id
 * and reports its events (with matched text), holding transitions, wire issues
 * and exactly one end; and reportingGuard sees every way a stream can end.
 */
import { describe, expect, it } from 'vitest';
import { parsePageMessage } from '../../../src/content/parse-page-message.ts';
import { createGuardTransform } from '../../../src/core/guard/guard-stream.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import {
  createGuardReporter,
  randomStreamId,
  type StreamReporter,
} from '../../../src/page/guard-reporter.ts';
import { reportingGuard } from '../../../src/page/reporting-guard.ts';
import type { PageToBridge, StreamOutcome } from '../../../src/protocol/page-channel.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';

const pack = compilePack(engineTestPack);

function recorder() {
  const sent: PageToBridge[] = [];
  let n = 0;
  const reporter = createGuardReporter(
    (m) => sent.push(m),
    () => `s${++n}`,
  );
  return { sent, reporter };
}

describe('randomStreamId', () => {
  it('is 32 hex digits from the random source, and ids differ', () => {
    const id = randomStreamId((bytes) => crypto.getRandomValues(bytes));
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(randomStreamId((b) => crypto.getRandomValues(b))).not.toBe(id);
    expect(randomStreamId((b) => b.fill(255))).toBe('f'.repeat(32));
  });
});

describe('createGuardReporter', () => {
  it('reports guard events with their matched text, in a form the bridge accepts', async () => {
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
    const message = sent[0] as Extract<PageToBridge, { type: 'guard-events' }>;
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
    expect(parsePageMessage(structuredClone(message))).toEqual(message);
  });

  it('gives each stream its own id', () => {
    const { reporter } = recorder();
    expect(reporter.openStream('in', 'a').streamId).not.toBe(
      reporter.openStream('in', 'a').streamId,
    );
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

/** A stream report that records how the stream ended. */
function endRecorder(implied: StreamOutcome = 'complete') {
  const ends: StreamOutcome[] = [];
  const report: Pick<StreamReporter, 'end' | 'impliedOutcome'> = {
    impliedOutcome: implied,
    end: (o) => ends.push(o),
  };
  return { ends, report };
}

function source(chunks: string[], fail?: Error): ReadableStream<string> {
  return new ReadableStream<string>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      if (fail) controller.error(fail);
      else controller.close();
    },
  });
}

describe('reportingGuard', () => {
  it('passes the guard output through and reports the implied outcome at the end', async () => {
    const { ends, report } = endRecorder('blocked');
    const guarded = source(['a ', 'b']).pipeThrough(
      reportingGuard(new TransformStream<string, string>(), report),
    );
    const chunks: string[] = [];
    const reader = guarded.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(chunks.join('')).toBe('a b');
    expect(ends).toEqual(['blocked']);
  });

  it('reports failed when the guard errors', async () => {
    const { ends, report } = endRecorder();
    const broken = new TransformStream<string, string>({
      transform() {
        throw new Error('engine bug');
      },
    });
    const guarded = source(['x']).pipeThrough(reportingGuard(broken, report));
    await expect(
      new Response(guarded.pipeThrough(new TextEncoderStream())).text(),
    ).rejects.toThrow();
    expect(ends).toEqual(['failed']);
  });

  it('reports aborted when the upstream fails (network error, AbortSignal)', async () => {
    const { ends, report } = endRecorder();
    const abort = new DOMException('aborted', 'AbortError');
    const guarded = source(['x'], abort).pipeThrough(
      reportingGuard(new TransformStream<string, string>(), report),
    );
    const reader = guarded.getReader();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toBe(abort);
    expect(ends).toEqual(['aborted']);
  });

  it('reports aborted when the page cancels the body', async () => {
    const { ends, report } = endRecorder();
    const guarded = source(['x', 'y']).pipeThrough(
      reportingGuard(new TransformStream<string, string>(), report),
    );
    const reader = guarded.getReader();
    await reader.read();
    await reader.cancel('page went away');
    expect(ends).toEqual(['aborted']);
  });
});
