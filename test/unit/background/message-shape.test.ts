import { describe, expect, it } from 'vitest';
import {
  MESSAGE_LIMITS,
  parseContentMessage,
  parseUiMessage,
} from '../../../src/background/message-shape.ts';

const stream = {
  streamId: 's1',
  direction: 'in',
  format: 'openai-chat',
  conversationId: '',
  turnId: '',
};
const match = {
  type: 'match',
  rule: 'jwt',
  kind: 'secret',
  action: 'redact',
  start: 1,
  end: 9,
  pack: 'core',
  matched: 'x',
};
const guardEvents = (events: unknown[], s: unknown = stream) => ({
  to: 'background',
  type: 'guard-events',
  stream: s,
  events,
});

describe('parseContentMessage', () => {
  it.each([
    ['page-config', { to: 'background', type: 'page-config' }],
    [
      'guard events',
      guardEvents([match, { type: 'error', message: 'validator threw', at: 4, pack: 'core' }]),
    ],
    [
      'a merged redaction naming other rules',
      guardEvents([{ ...match, also: ['generic-api-key'] }]),
    ],
    ['holding', { to: 'background', type: 'holding', streamId: 's1', holding: true }],
    ['stream-end', { to: 'background', type: 'stream-end', streamId: 's1', outcome: 'blocked' }],
    [
      'wire-issue',
      { to: 'background', type: 'wire-issue', streamId: 's1', kind: 'unknown-frame', detail: 'x' },
    ],
    ['open-popup', { to: 'background', type: 'open-popup' }],
    [
      'send-anyway',
      {
        to: 'background',
        type: 'send-anyway',
        findings: [{ rule: 'email', kind: 'pii', matched: 'a@b' }],
      },
    ],
  ])('accepts %s', (_name, message) => {
    expect(parseContentMessage(message)).not.toBeNull();
  });

  it.each([
    ['not an object', 'page-config'],
    ['another recipient', { to: 'popup', type: 'page-config' }],
    ['an unknown type', { to: 'background', type: 'read-settings' }],
    ['an unknown kind', guardEvents([{ ...match, kind: 'password' }])],
    ['an unknown action', guardEvents([{ ...match, action: 'allow' }])],
    ['end before start', guardEvents([{ ...match, start: 9, end: 1 }])],
    ['a negative offset', guardEvents([{ ...match, start: -1 }])],
    ['a fractional offset', guardEvents([{ ...match, end: 2.5 }])],
    ['other rules not a list', guardEvents([{ ...match, also: 'generic-api-key' }])],
    ['other rules not strings', guardEvents([{ ...match, also: [1] }])],
    [
      'too many other rules',
      guardEvents([
        { ...match, also: Array.from({ length: MESSAGE_LIMITS.alsoRules + 1 }, () => 'r') },
      ]),
    ],
    [
      'matched text too long',
      guardEvents([{ ...match, matched: 'x'.repeat(MESSAGE_LIMITS.matchedLength + 1) }]),
    ],
    [
      'too many events',
      guardEvents(Array.from({ length: MESSAGE_LIMITS.events + 1 }, () => match)),
    ],
    ['a stream without id', guardEvents([match], { ...stream, streamId: '' })],
    ['a bad direction', guardEvents([match], { ...stream, direction: 'sideways' })],
    ['events not a list', { to: 'background', type: 'guard-events', stream, events: match }],
    [
      'a bad outcome',
      { to: 'background', type: 'stream-end', streamId: 's1', outcome: 'exploded' },
    ],
    ['holding not boolean', { to: 'background', type: 'holding', streamId: 's1', holding: 'yes' }],
    ['an answer without format', { to: 'background', type: 'answer-guarded', decoded: true }],
    [
      'an answer format that is no id',
      { to: 'background', type: 'answer-guarded', format: 'OpenAI chat!', decoded: true },
    ],
    [
      'an answer format too long',
      { to: 'background', type: 'answer-guarded', format: 'x'.repeat(41), decoded: true },
    ],
    [
      'an answer decoded not boolean',
      { to: 'background', type: 'answer-guarded', format: 'generic', decoded: 'no' },
    ],
  ])('refuses %s', (_name, message) => {
    expect(parseContentMessage(message)).toBeNull();
  });

  it('keeps only the declared fields of an answer count (issue 18)', () => {
    expect(
      parseContentMessage({
        to: 'background',
        type: 'answer-guarded',
        format: 'openai-chat',
        decoded: true,
        text: 'what the page said',
        tabId: 99,
      }),
    ).toEqual({ to: 'background', type: 'answer-guarded', format: 'openai-chat', decoded: true });
    expect(
      parseContentMessage({
        to: 'background',
        type: 'answer-guarded',
        format: 'generic',
        decoded: false,
      }),
    ).toEqual({ to: 'background', type: 'answer-guarded', format: 'generic', decoded: false });
  });
});

describe('parseUiMessage', () => {
  it.each([
    { to: 'background', type: 'tab-state', tabId: 3 },
    { to: 'background', type: 'set-site', site: 'claude.ai', enabled: false },
    { to: 'background', type: 'get-settings' },
    { to: 'background', type: 'put-settings', settings: {} },
    {
      to: 'background',
      type: 'audit-query',
      query: { site: 'claude.ai', kind: 'error', since: 5, limit: 10 },
    },
    { to: 'background', type: 'audit-export', format: 'csv', query: {} },
    { to: 'background', type: 'audit-clear' },
  ])('accepts %j', (message) => {
    expect(parseUiMessage(message)).not.toBeNull();
  });

  it.each([
    { to: 'background', type: 'tab-state', tabId: -1 },
    { to: 'background', type: 'set-site', site: 'claude.ai', enabled: 'off' },
    { to: 'background', type: 'put-settings' },
    { to: 'background', type: 'audit-query', query: { kind: 'everything' } },
    { to: 'background', type: 'audit-export', format: 'xlsx', query: {} },
    { to: 'background', type: 'page-config' },
  ])('refuses %j', (message) => {
    expect(parseUiMessage(message)).toBeNull();
  });
});
