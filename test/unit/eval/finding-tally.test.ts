/** Changing findings and flags per MB and per rule (scripts/eval/finding-tally.ts, targets.ts). */
import { describe, expect, it } from 'vitest';
import type { GuardEvent, MatchEvent } from '../../../src/core/guard/guard-event.ts';
import type { ScanOutcome } from '../../../src/core/guard/scan-text.ts';
import { FindingTally, locate } from '../../../scripts/eval/finding-tally.ts';
import { checkTargets } from '../../../scripts/eval/targets.ts';

function match(rule: string, action: MatchEvent['action'], start: number, end: number): MatchEvent {
  return {
    type: 'match',
    rule,
    kind: action === 'flag' ? 'pii' : 'secret',
    action,
    start,
    end,
    pack: 'p',
  };
}

function outcome(events: GuardEvent[]): ScanOutcome {
  return { output: '', events, blocked: false, emits: [] };
}

describe('locate', () => {
  it('turns code-point offsets into UTF-16 indices and lines', () => {
    const text = 'a\u{1F600}b\nc\u{1F600}\nd';
    expect(locate(text, [0, 2, 3, 4, 7])).toEqual([
      { index: 0, line: 1 },
      { index: 3, line: 1 },
      { index: 4, line: 1 },
      { index: 5, line: 2 },
      { index: 9, line: 3 },
    ]);
  });
});

describe('FindingTally', () => {
  it('splits changing findings from flags, per rule and per MB', () => {
    const tally = new FindingTally({ keepPerRule: 1 });
    const text = 'key=abc mail a@b.c\nline two a@b.c';
    tally.add(
      'f1',
      'src',
      text,
      outcome([
        match('generic-api-key', 'redact', 0, 7),
        match('email-address', 'flag', 13, 18),
        match('email-address', 'flag', 28, 33),
        { type: 'error', rule: 'bad', message: 'x', at: 3, pack: 'p' },
      ]),
    );
    expect(tally.files).toBe(1);
    expect(tally.bytes).toBe(Buffer.byteLength(text));
    expect([tally.changing, tally.flags, tally.errors]).toEqual([2, 2, 1]);
    expect(tally.perRule('changing')).toEqual({ 'error:bad': 1, 'generic-api-key': 1 });
    expect(tally.top('flags', 5)).toEqual([{ rule: 'email-address', count: 2 }]);
    expect(tally.perMb(tally.flags)).toBeCloseTo(2 / (text.length / 1e6), 0);
    const flags = tally.withText('flags')['email-address'];
    expect(flags?.count).toBe(2);
    expect(flags?.findings).toHaveLength(1);
    expect(flags?.findings[0]).toMatchObject({ file: 'f1', offset: 13, line: 1, match: 'a@b.c' });
    const detail = tally.detail('changing', 5);
    expect(detail.find((d) => d.rule === 'generic-api-key')).toMatchObject({
      count: 1,
      files: 1,
      by_source: { src: 1 },
      top_files: [{ file: 'f1', count: 1 }],
      first: [{ file: 'f1', offset: 0, line: 1, action: 'redact' }],
    });
    expect(JSON.stringify(detail)).not.toContain('key=abc');
  });
});

describe('checkTargets', () => {
  it('compares each figure with its target; an unmeasured one is not met', () => {
    const targets = checkTargets({
      secretsRecall: 0.97,
      secretsFpRate: 0.02,
      benignFilesChangingPerMb: 0.5,
      benignWildChangingPerMb: null,
      exfilRecall: 1,
      exfilBenignLinksChanged: 0,
      injectionFpRate: 0.01,
    });
    expect(Object.fromEntries(Object.entries(targets).map(([k, t]) => [k, t.met]))).toEqual({
      'secrets.recall': true,
      'secrets.fp_rate': false,
      'benign_files.changing_per_mb': true,
      'benign_wild.changing_per_mb': false,
      'exfil.recall': true,
      'exfil.benign_changed_count': true,
      'injection.fp_rate': true,
    });
  });
});
