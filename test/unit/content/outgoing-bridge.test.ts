/**
 * The bridge's outgoing pieces without a browser: pasted spans and their forms,
 * the insertion diff of the paste tracker, reference-only marks by keyed digest
 * (bound by position, then by the digest of the text the request carries), and the
 * handler that answers `outgoing-lookup` / `confirm-send` and logs "send anyway".
 */
import { webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handleOutgoingMessage } from '../../../src/content/outgoing-bridge.ts';
import { OutgoingReports } from '../../../src/content/outgoing-notices.ts';
import { insertedText } from '../../../src/content/paste-tracker.ts';
import { MAX_PASTED_SPANS, PastedSpans, spanForms } from '../../../src/content/pasted-spans.ts';
import { ReferenceOnlyMarks, createPageDigest } from '../../../src/content/reference-only-marks.ts';
import type { GuardAnswer } from '../../../src/protocol/guard-reports.ts';
import type { ContentToBackground } from '../../../src/protocol/runtime-messages.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const digest = await createPageDigest(webcrypto.subtle as SubtleCrypto);

describe('PastedSpans', () => {
  it('finds a span as pasted, with CR/CRLF as LF, or trimmed', () => {
    const spans = new PastedSpans();
    spans.add('  one\r\ntwo\rthree \n');
    expect(spans.found(['x one\ntwo\nthree y'])).toEqual(['one\ntwo\nthree']);
    expect(spanForms('a\r\nb')).toEqual(['a\r\nb', 'a\nb']);
    expect(spans.found(['unrelated'])).toEqual([]);
  });

  it('keeps a bounded number of spans, forgetting the oldest', () => {
    const spans = new PastedSpans();
    for (let i = 0; i <= MAX_PASTED_SPANS; i++) spans.add(`span number ${String(i)};`);
    expect(spans.size).toBe(MAX_PASTED_SPANS);
    expect(spans.found(['span number 0;'])).toEqual([]);
    expect(spans.found([`span number ${String(MAX_PASTED_SPANS)};`])).toHaveLength(1);
  });
});

describe('insertedText', () => {
  it('for any field text and insertion point, gives back what was inserted', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.nat(), (before, paste, at) => {
        const i = at % (before.length + 1);
        const after = before.slice(0, i) + paste + before.slice(i);
        const got = insertedText(before, after);
        // The diff may shift inside a run of equal characters, never change the text.
        expect(got.length).toBe(paste.length);
        expect(after.includes(got)).toBe(true);
        if (!before.includes(paste[0] as string)) expect(got).toBe(paste);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

describe('ReferenceOnlyMarks', () => {
  it('binds a mark to the text sent at its position, then follows the digest', async () => {
    const marks = new ReferenceOnlyMarks(digest);
    await marks.set('/c/1', 1, 'rendered answer', true);
    expect(marks.isMarked('/c/1', 1)).toBe(true);
    expect(await marks.lookup('/c/1', ['q', '**answer** in markdown', 'q2'])).toEqual([1]);
    // Later the message moves (an earlier one is gone): the digest still finds it.
    expect(await marks.lookup('/c/1', ['**answer** in markdown', 'q2', 'q3'])).toEqual([0]);
    // Another conversation knows nothing of it.
    expect(await marks.lookup('/c/2', ['**answer** in markdown'])).toEqual([]);
    await marks.set('/c/1', 1, '', false);
    expect(await marks.lookup('/c/1', ['**answer** in markdown'])).toEqual([]);
  });

  it('digests are keyed: not a plain hash, and not equal across keys', async () => {
    const other = await createPageDigest(webcrypto.subtle as SubtleCrypto);
    expect(await digest('same text')).not.toBe(await other('same text'));
    expect(await digest('same text')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('handleOutgoingMessage', () => {
  function deps(answer: 'send' | 'edit' | 'cancel') {
    const toPage: GuardAnswer[] = [];
    const reports: ContentToBackground[] = [];
    const cancelled: string[] = [];
    const edited: string[] = [];
    const asked: boolean[] = [];
    const spans = new PastedSpans();
    spans.add('pasted material, long enough');
    return {
      toPage,
      reports,
      cancelled,
      edited,
      asked,
      deps: {
        spans,
        marks: new ReferenceOnlyMarks(digest),
        conversation: () => '/c',
        ask: (_findings: unknown, bound: boolean) => {
          asked.push(bound);
          return Promise.resolve(answer);
        },
        toPage: (m: GuardAnswer) => toPage.push(m),
        report: (m: ContentToBackground) => reports.push(m),
        cancelledNotice: (id: string) => cancelled.push(id),
        editNotice: (id: string) => edited.push(id),
      },
    };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

  it('answers a lookup with the spans found in the texts only', async () => {
    const d = deps('send');
    expect(
      handleOutgoingMessage(
        {
          v: 1,
          type: 'outgoing-lookup',
          requestId: 'r1',
          texts: ['a pasted material, long enough b'],
          history: [],
        },
        d.deps,
      ),
    ).toBe(true);
    await settle();
    expect(d.toPage).toEqual([
      {
        v: 1,
        type: 'outgoing-lookup-result',
        requestId: 'r1',
        pasted: ['pasted material, long enough'],
        referenceOnly: [],
      },
    ]);
  });

  it('"send anyway" answers send and logs the findings to the background', async () => {
    const d = deps('send');
    const findings = [{ rule: 'email-address', kind: 'pii' as const, matched: 'a@b.example' }];
    handleOutgoingMessage({ v: 1, type: 'confirm-send', requestId: 'r2', findings }, d.deps);
    await settle();
    expect(d.reports).toEqual([{ to: 'background', type: 'send-anyway', findings }]);
    expect(d.toPage).toEqual([{ v: 1, type: 'send-decision', requestId: 'r2', decision: 'send' }]);
  });

  it('cancel answers cancel, logs nothing and shows a notice', async () => {
    const d = deps('cancel');
    handleOutgoingMessage({ v: 1, type: 'confirm-send', requestId: 'r3', findings: [] }, d.deps);
    await settle();
    expect(d.reports).toEqual([]);
    expect(d.cancelled).toEqual(['r3']);
    expect(d.toPage).toEqual([
      { v: 1, type: 'send-decision', requestId: 'r3', decision: 'cancel' },
    ]);
  });

  it('an integrity-bound request asks the bound dialog; "edit" answers edit, logs nothing', async () => {
    const d = deps('edit');
    const findings = [{ rule: 'github-pat', kind: 'secret' as const, matched: 'x' }];
    handleOutgoingMessage(
      { v: 1, type: 'confirm-send', requestId: 'r4', findings, bound: true },
      d.deps,
    );
    await settle();
    expect(d.asked).toEqual([true]);
    expect(d.reports).toEqual([]);
    expect(d.edited).toEqual(['r4']);
    expect(d.cancelled).toEqual([]);
    expect(d.toPage).toEqual([{ v: 1, type: 'send-decision', requestId: 'r4', decision: 'edit' }]);
  });

  it('leaves other reports to the report handler', () => {
    expect(
      handleOutgoingMessage(
        { v: 1, type: 'holding', streamId: 's', holding: true },
        deps('send').deps,
      ),
    ).toBe(false);
  });
});

describe('OutgoingReports', () => {
  it('forwards request-stream events, notices in "your message" words, and its stream-end', () => {
    const reports: ContentToBackground[] = [];
    const notices: string[] = [];
    const out = new OutgoingReports(
      { report: (m) => reports.push(m), notice: (_k, text) => notices.push(text) },
      (key) => key,
      1_000,
    );
    const stream = {
      streamId: 's1',
      direction: 'out' as const,
      format: 'openai-chat',
      conversationId: '',
      turnId: '',
    };
    const event = {
      type: 'match' as const,
      rule: 'github-pat',
      kind: 'secret' as const,
      action: 'redact' as const,
      start: 0,
      end: 3,
      pack: 'p',
      matched: 'abc',
    };
    expect(out.handle({ v: 1, type: 'guard-events', stream, events: [event] })).toBe(true);
    expect(notices).toEqual(['notice_out_redacted']);
    expect(out.handle({ v: 1, type: 'stream-end', streamId: 's1', outcome: 'complete' })).toBe(
      true,
    );
    expect(reports.map((r) => r.type)).toEqual(['guard-events', 'stream-end']);
    // Answer streams are not its business.
    expect(
      out.handle({
        v: 1,
        type: 'guard-events',
        stream: { ...stream, direction: 'in' },
        events: [event],
      }),
    ).toBe(false);
    expect(out.handle({ v: 1, type: 'stream-end', streamId: 'other', outcome: 'complete' })).toBe(
      false,
    );
  });
});
