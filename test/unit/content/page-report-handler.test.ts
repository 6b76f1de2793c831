/**
 * What the bridge does with each validated page message: the runtime message
 * for the background (runtime-messages.ts) and the in-page notice, in plain words.
 */
import { describe, expect, it } from 'vitest';
import { kindPhrase, matchNoticeText } from '../../../src/content/notice-text.ts';
import { handlePageMessage, type ReportSinks } from '../../../src/content/page-report-handler.ts';
import type { GuardReport } from '../../../src/protocol/guard-reports.ts';
import { UNDECODABLE_RULE } from '../../../src/core/wire/wire-event.ts';
import type { Translate } from '../../../src/ui/i18n.ts';
import { unguardedNoticeKey, unguardedReport } from '../../../src/content/unguarded-reports.ts';
import { awsKeyId } from '../cli/synthetic-secrets.ts';

/** A tiny English catalogue in the shape of _locales (placeholders $1, $2). */
const catalogue: Record<string, string> = {
  notice_redacted: 'Chat Stream Guard redacted $1 ($2) from the answer.',
  notice_blocked: 'Chat Stream Guard stopped the answer: it contained $1 ($2).',
  notice_failed: 'Guard failed.',
  notice_kind_secret: 'a secret',
  notice_memory_write: 'The assistant is saving a memory that reads like an instruction.',
  rule_aws_access_key_id: 'AWS access key',
};
const translate: Translate = (key, subs) => {
  const message = catalogue[key];
  if (message === undefined) return key;
  const list = typeof subs === 'string' ? [subs] : (subs ?? []);
  return message.replace(/\$(\d)/g, (_m, n: string) => list[Number(n) - 1] ?? '');
};

function sinks() {
  const log: string[] = [];
  const reported: unknown[] = [];
  const notices: { key: string; text: string; tone: string; ms?: number }[] = [];
  const s: ReportSinks = {
    report: (m) => reported.push(m),
    holding: (id, h) => log.push(`holding:${id}:${h}`),
    ended: (id) => log.push(`ended:${id}`),
    notice: (key, text, tone, ms) =>
      notices.push({ key, text, tone, ...(ms === undefined ? {} : { ms }) }),
    dismiss: (prefix) => {
      for (let i = notices.length - 1; i >= 0; i--) {
        if (notices[i]?.key.startsWith(prefix)) notices.splice(i, 1);
      }
    },
  };
  return { s, log, reported, notices };
}

const stream = {
  streamId: 's1',
  direction: 'in',
  format: 'openai-chat',
  conversationId: '',
  turnId: '',
} as const;
const secret = awsKeyId();
const match = {
  type: 'match',
  rule: 'aws-access-key-id',
  kind: 'secret',
  action: 'redact',
  start: 0,
  end: secret.length,
  pack: 'builtin@1',
  matched: secret,
} as const;

describe('handlePageMessage', () => {
  it('forwards guard events and shows a self-dismissing redaction notice naming the kind and rule', () => {
    const { s, reported, notices } = sinks();
    const message: GuardReport = { v: 1, type: 'guard-events', stream, events: [match] };
    handlePageMessage(message, s, translate, 8_000);
    expect(reported).toEqual([{ to: 'background', type: 'guard-events', stream, events: [match] }]);
    expect(notices).toEqual([
      {
        key: 's1:redact:aws-access-key-id',
        text: 'Chat Stream Guard redacted a secret (AWS access key) from the answer.',
        tone: 'info',
        ms: 8_000,
      },
    ]);
    expect(notices[0]?.text).not.toContain(secret);
  });

  it('keeps block and failure notices until closed; flags show nothing in the page', () => {
    const { s, notices } = sinks();
    handlePageMessage(
      {
        v: 1,
        type: 'guard-events',
        stream,
        events: [
          { ...match, action: 'flag' },
          { ...match, action: 'block' },
          { type: 'error', message: 'validator threw', at: 4, pack: 'p' },
        ],
      },
      s,
      translate,
      8_000,
    );
    expect(notices).toEqual([
      {
        key: 's1:block',
        text: 'Chat Stream Guard stopped the answer: it contained a secret (AWS access key).',
        tone: 'warning',
      },
      { key: 's1:failed', text: 'Guard failed.', tone: 'error' },
    ]);
  });

  it('forwards holding, stream end and wire issues; a failed end shows the failure notice', () => {
    const { s, log, reported, notices } = sinks();
    handlePageMessage({ v: 1, type: 'holding', streamId: 's1', holding: true }, s, translate, 1);
    handlePageMessage(
      { v: 1, type: 'wire-issue', streamId: 's1', kind: 'unrecognised-frame', detail: 'd' },
      s,
      translate,
      1,
    );
    handlePageMessage(
      { v: 1, type: 'stream-end', streamId: 's1', outcome: 'failed' },
      s,
      translate,
      1,
    );
    expect(reported).toEqual([
      { to: 'background', type: 'holding', streamId: 's1', holding: true },
      {
        to: 'background',
        type: 'wire-issue',
        streamId: 's1',
        kind: 'unrecognised-frame',
        detail: 'd',
      },
      { to: 'background', type: 'stream-end', streamId: 's1', outcome: 'failed' },
    ]);
    expect(log).toEqual(['holding:s1:true', 'ended:s1']);
    expect(notices).toEqual([{ key: 's1:failed', text: 'Guard failed.', tone: 'error' }]);
  });

  it('forwards an answer count (issue 18) with its format only, and shows no notice', () => {
    const { s, log, reported, notices } = sinks();
    handlePageMessage(
      { v: 1, type: 'answer-guarded', streamId: 's1', format: 'generic', decoded: false },
      s,
      translate,
      1,
    );
    expect(reported).toEqual([
      { to: 'background', type: 'answer-guarded', format: 'generic', decoded: false },
    ]);
    expect(log).toEqual([]);
    expect(notices).toEqual([]);
  });

  it('a stream that fails shows one failure notice instead of its redaction notices', () => {
    const { s, notices } = sinks();
    handlePageMessage({ v: 1, type: 'guard-events', stream, events: [match] }, s, translate, 1);
    expect(notices.map((n) => n.key)).toEqual([`s1:redact:${match.rule}`]);
    handlePageMessage(
      { v: 1, type: 'stream-end', streamId: 's1', outcome: 'failed' },
      s,
      translate,
      1,
    );
    expect(notices.map((n) => n.key)).toEqual(['s1:failed']);
  });

  it('sends nothing for the outgoing questions (outgoing-bridge.ts answers them)', () => {
    const { s, reported, notices } = sinks();
    handlePageMessage(
      { v: 1, type: 'outgoing-lookup', requestId: 'r', texts: [], history: [] },
      s,
      translate,
      1,
    );
    expect(reported).toEqual([]);
    expect(notices).toEqual([]);
  });
});

describe('notice text', () => {
  it('falls back to readable names when a kind or rule has no translation', () => {
    expect(kindPhrase('custom', translate)).toBe('Custom');
    expect(
      matchNoticeText({ rule: 'my-house-rule', kind: 'custom', action: 'redact' }, translate),
    ).toBe('Chat Stream Guard redacted Custom (My house rule) from the answer.');
  });
});

describe('handlePageMessage: memory writes (issue 5 §4)', () => {
  const stream = {
    streamId: 's-mem',
    direction: 'in' as const,
    format: 'chatgpt-web',
    conversationId: '',
    turnId: '',
  };
  const flag = (rule: string) => ({
    type: 'match' as const,
    rule,
    kind: 'injection' as const,
    action: 'flag' as const,
    start: 0,
    end: 6,
    pack: 'memory-audit@1',
    matched: 'Always',
  });

  it('tells the person in the page when a memory write is instruction-shaped', () => {
    const { s, notices, reported } = sinks();
    handlePageMessage(
      { v: 1, type: 'guard-events', stream, events: [flag('memory-write-instruction')] },
      s,
      translate,
      8000,
    );
    expect(reported).toHaveLength(1);
    expect(notices).toEqual([
      {
        key: 's-mem:memory',
        text: 'The assistant is saving a memory that reads like an instruction.',
        tone: 'warning',
      },
    ]);
  });

  it('other flags stay in the popup', () => {
    const { s, notices } = sinks();
    handlePageMessage(
      { v: 1, type: 'guard-events', stream, events: [flag('injection-ignore-previous')] },
      s,
      translate,
      8000,
    );
    expect(notices).toEqual([]);
  });
});

describe('handlePageMessage: an answer that could not be decoded (issue 18 §1)', () => {
  it('says so in the page (the failure notice of the stream, so its end adds no other)', () => {
    const { s, notices, reported } = sinks();
    const undecodable = {
      type: 'error',
      rule: UNDECODABLE_RULE,
      message: 'undecodable: binary',
      at: 0,
      pack: 'p@1',
    } as const;
    const generic = { ...stream, format: 'generic' };
    handlePageMessage(
      { v: 1, type: 'guard-events', stream: generic, events: [undecodable] },
      s,
      (key) => (key === 'notice_undecodable' ? 'Could not be decoded.' : translate(key)),
      8000,
    );
    expect(reported).toEqual([
      { to: 'background', type: 'guard-events', stream: generic, events: [undecodable] },
    ]);
    expect(notices).toEqual([{ key: 's1:failed', text: 'Could not be decoded.', tone: 'error' }]);
  });
});

describe('handlePageMessage: let through unchecked, and said so (issue 18)', () => {
  it.each([
    ['web-socket', 'undecodable-passed', 'notice_undecodable_passed'],
    ['service-worker', 'active', 'notice_service_worker'],
  ])(
    '%s %s: its own warning notice, not the failure notice; forwarded for the audit log',
    (hook, reason, key) => {
      const report = unguardedReport(hook, reason)!;
      expect(report.notice).toBe(key);
      const { s, notices, reported } = sinks();
      const event = {
        type: 'error',
        rule: report.rule,
        message: report.message,
        at: 0,
        pack: 'page',
      } as const;
      const ref = { ...stream, format: report.format };
      handlePageMessage(
        { v: 1, type: 'guard-events', stream: ref, events: [event] },
        s,
        (k) => (k === key ? 'Let through unchecked.' : translate(k)),
        8000,
      );
      handlePageMessage(
        { v: 1, type: 'stream-end', streamId: 's1', outcome: 'complete' },
        s,
        translate,
        8000,
      );
      expect(reported[0]).toEqual({
        to: 'background',
        type: 'guard-events',
        stream: ref,
        events: [event],
      });
      expect(notices).toEqual([
        { key: 's1:unguarded', text: 'Let through unchecked.', tone: 'warning' },
      ]);
    },
  );

  it('a hook failure that is not one of them is not taken for one', () => {
    expect(unguardedReport('web-socket', 'decision')).toBeUndefined();
    expect(unguardedReport('fetch', 'undecodable-passed')).toBeUndefined();
    expect(unguardedNoticeKey(UNDECODABLE_RULE)).toBeUndefined();
    expect(unguardedNoticeKey(undefined)).toBeUndefined();
  });
});
