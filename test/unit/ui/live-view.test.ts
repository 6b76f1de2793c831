import { describe, expect, it } from 'vitest';
import type { AuditRecord, TabState } from '../../../src/protocol/runtime-messages.ts';
import { isLiveMessage, isSettings, isTabState } from '../../../src/ui/background-answers.ts';
import { LIVE_EVENT_LIMIT, applyLiveMessage, liveViewOf } from '../../../src/ui/popup/live-view.ts';

function record(id: number): AuditRecord {
  return {
    id,
    time: id,
    site: 's',
    tabId: 1,
    conversationId: '',
    turnId: '',
    streamId: 'x',
    direction: 'in',
    format: 'f',
    rule: 'jwt',
    kind: 'secret',
    action: 'redact',
    start: 0,
    end: 1,
    length: 1,
    digest: '00',
    pack: 'secrets',
  };
}

const state: TabState = {
  tabId: 1,
  site: 's',
  enabled: true,
  permitted: true,
  counters: { tab: 1, today: 2 },
  recent: [record(1)],
  holding: false,
};

describe('popup live view', () => {
  it('starts from the tab state and applies live messages in order', () => {
    let view = liveViewOf(state);
    view = applyLiveMessage(view, { type: 'event', record: record(2) });
    view = applyLiveMessage(view, { type: 'holding', holding: true });
    view = applyLiveMessage(view, { type: 'counters', tab: 2, today: 3 });
    expect(view.events.map((e) => e.id)).toEqual([1, 2]);
    expect(view.holding).toBe(true);
    expect(view.counters).toEqual({ tab: 2, today: 3 });
  });

  it('takes the answer counts of its own site only (issue 18)', () => {
    const answers = { adapters: { 'openai-chat': 2 }, generic: 1, undecodable: 0 };
    let view = liveViewOf({ ...state, answers });
    expect(view.answers).toEqual(answers);
    const next = { ...answers, undecodable: 1 };
    view = applyLiveMessage(view, { type: 'answers', site: 'frame.example', answers: next });
    expect(view.answers).toEqual(answers);
    view = applyLiveMessage(view, { type: 'answers', site: 's', answers: next });
    expect(view.answers).toEqual(next);
    expect(liveViewOf(state).answers).toBeUndefined();
  });

  it('does not list a stored record twice and keeps only the newest events', () => {
    let view = liveViewOf(state);
    view = applyLiveMessage(view, { type: 'event', record: record(1) });
    expect(view.events).toHaveLength(1);
    for (let id = 2; id <= LIVE_EVENT_LIMIT + 10; id++) {
      view = applyLiveMessage(view, { type: 'event', record: record(id) });
    }
    expect(view.events).toHaveLength(LIVE_EVENT_LIMIT);
    expect(view.events.at(-1)?.id).toBe(LIVE_EVENT_LIMIT + 10);
  });
});

describe('background answer shapes', () => {
  it('accept what the protocol says and refuse the rest', () => {
    expect(isTabState(state)).toBe(true);
    expect(isTabState({ ...state, counters: { tab: -1, today: 0 } })).toBe(false);
    expect(isTabState({ error: 'not a site' })).toBe(false);
    expect(isLiveMessage({ type: 'event', record: record(3) })).toBe(true);
    expect(isLiveMessage({ type: 'event', record: { rule: 'x' } })).toBe(false);
    expect(isLiveMessage({ type: 'counters', tab: 1, today: Number.NaN })).toBe(false);
    expect(isLiveMessage({ type: 'other' })).toBe(false);
    expect(isSettings({ version: 1, sites: {} })).toBe(false);
    const answers = { adapters: { generic: 1 }, generic: 0, undecodable: 2 };
    expect(isTabState({ ...state, answers })).toBe(true);
    expect(isTabState({ ...state, answers: { ...answers, generic: -1 } })).toBe(false);
    expect(isTabState({ ...state, answers: { ...answers, adapters: { x: 'many' } } })).toBe(false);
    expect(isLiveMessage({ type: 'answers', site: 's', answers })).toBe(true);
    expect(isLiveMessage({ type: 'answers', answers })).toBe(false);
    expect(isLiveMessage({ type: 'answers', site: 's', answers: { generic: 1 } })).toBe(false);
  });
});
