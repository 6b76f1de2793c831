/**
 * Issue 18: the answers guarded per tab and site, by a specific adapter (per format),
 * by the generic adapter, or not decodable; bounded, and restored defensively from
 * storage.session.
 */
import { describe, expect, it } from 'vitest';
import {
  ANSWER_COUNT_LIMITS,
  AnswerTally,
  totalAnswers,
} from '../../../src/background/answer-counts.ts';

describe('AnswerTally', () => {
  it('counts by format, generic and undecodable, per tab and site', () => {
    const tally = new AnswerTally();
    tally.add(1, 'chat.example', 'openai-chat', true);
    tally.add(1, 'chat.example', 'openai-chat', true);
    tally.add(1, 'chat.example', 'generic', true);
    // Not decodable: counted as such whatever format the stream opened with.
    tally.add(1, 'chat.example', 'generic', false);
    tally.add(1, 'chat.example', 'openai-chat', false);
    const last = tally.add(1, 'chat.example', 'plain-text', true);
    tally.add(1, 'frame.example', 'anthropic', true);
    tally.add(2, 'chat.example', 'anthropic', true);
    const expected = {
      adapters: { 'openai-chat': 2, 'plain-text': 1 },
      generic: 1,
      undecodable: 2,
    };
    expect(last).toEqual(expected);
    expect(tally.get(1, 'chat.example')).toEqual(expected);
    expect(totalAnswers(expected)).toBe(6);
    expect(tally.get(1, 'frame.example')).toEqual({
      adapters: { anthropic: 1 },
      generic: 0,
      undecodable: 0,
    });
    expect(tally.get(3, 'chat.example')).toEqual({ adapters: {}, generic: 0, undecodable: 0 });
    // Copies: changing one changes nothing kept.
    tally.get(1, 'chat.example').generic = 99;
    last.undecodable = 99;
    expect(tally.get(1, 'chat.example')).toEqual(expected);
    tally.reset(1);
    expect(tally.get(1, 'chat.example')).toEqual({ adapters: {}, generic: 0, undecodable: 0 });
    expect(tally.get(2, 'chat.example').adapters).toEqual({ anthropic: 1 });
  });

  it('is bounded: the oldest site of a tab goes, formats beyond the limit are not kept', () => {
    const tally = new AnswerTally();
    for (let i = 0; i <= ANSWER_COUNT_LIMITS.sitesPerTab; i++)
      tally.add(1, `s${i}.test`, 'x', true);
    expect(tally.get(1, 's0.test').adapters).toEqual({});
    expect(tally.get(1, `s${ANSWER_COUNT_LIMITS.sitesPerTab}.test`).adapters).toEqual({ x: 1 });
    for (let i = 0; i <= ANSWER_COUNT_LIMITS.formatsPerSite; i++)
      tally.add(1, 'a.test', `f${i}`, true);
    tally.add(1, 'a.test', 'f0', true);
    const counts = tally.get(1, 'a.test');
    expect(Object.keys(counts.adapters)).toHaveLength(ANSWER_COUNT_LIMITS.formatsPerSite);
    expect(counts.adapters.f0).toBe(2);
  });

  it('restores a snapshot, skipping malformed entries and tabs it already has', () => {
    const tally = new AnswerTally();
    tally.add(1, 'chat.example', 'openai-chat', true);
    tally.add(1, 'chat.example', 'generic', false);
    const snapshot = JSON.parse(JSON.stringify(tally.snapshot())) as unknown;

    const restored = new AnswerTally();
    restored.add(2, 'kept.example', 'generic', true);
    restored.restore({
      ...(snapshot as object),
      2: { 'kept.example': { adapters: {}, generic: 50, undecodable: 0 } },
      3: {
        'bad counts.example': { adapters: {}, generic: -1, undecodable: 0 },
        'x.example': { adapters: { 'Not An Id': 3, ok: 1.5, fine: 2 }, generic: 0, undecodable: 1 },
        'no adapters.example': { generic: 0, undecodable: 0 },
      },
      'not a tab': { 'a.example': { adapters: {}, generic: 1, undecodable: 0 } },
      4: 'nonsense',
    });
    restored.restore(null);
    restored.restore('nonsense');
    expect(restored.get(1, 'chat.example')).toEqual(tally.get(1, 'chat.example'));
    expect(restored.get(2, 'kept.example').generic).toBe(1);
    expect(restored.get(3, 'x.example')).toEqual({
      adapters: { fine: 2 },
      generic: 0,
      undecodable: 1,
    });
    expect(restored.get(3, 'bad counts.example').generic).toBe(0);
    expect(Object.keys(restored.snapshot()).sort()).toEqual(['1', '2', '3']);
  });
});
