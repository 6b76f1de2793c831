/**
 * Guard events become audit records: the matched text is replaced by its keyed
 * digest and goes no further (DESIGN.md invariant 7); a merged redaction keeps
 * the ids of the other rules it covered (issue 17 §1), never their text.
 */
import { describe, expect, it } from 'vitest';
import { recordsFromGuardEvents } from '../../../src/background/audit-records.ts';
import type { PageGuardEvent, StreamRef } from '../../../src/protocol/guard-reports.ts';

const stream: StreamRef = {
  streamId: 's1',
  direction: 'in',
  format: 'openai-chat',
  conversationId: 'c1',
  turnId: 't1',
};
const sender = { tabId: 3, frameId: 0, site: 'chat.example' };
const digest = (text: string): Promise<string> => Promise.resolve(`digest-of-${text.length}`);

describe('recordsFromGuardEvents', () => {
  it('keeps the rule, the other rules and the offsets, and no matched text', async () => {
    const matched = 'sk-proj-synthetic-value-for-the-test';
    const events: PageGuardEvent[] = [
      {
        type: 'match',
        rule: 'openai-api-key',
        kind: 'secret',
        action: 'redact',
        start: 15,
        end: 15 + matched.length,
        pack: 'secrets@1',
        matched,
        also: ['password-assignment'],
      },
      {
        type: 'match',
        rule: 'email-address',
        kind: 'pii',
        action: 'flag',
        start: 0,
        end: 5,
        pack: 'pii@1',
        matched: 'a@b.c',
      },
    ];
    const records = await recordsFromGuardEvents(events, stream, sender, digest, 42);
    expect(records[0]).toMatchObject({
      rule: 'openai-api-key',
      also: ['password-assignment'],
      length: matched.length,
      digest: `digest-of-${matched.length}`,
      site: 'chat.example',
    });
    expect(records[1]).not.toHaveProperty('also');
    expect(JSON.stringify(records)).not.toContain(matched);
    expect(JSON.stringify(records)).not.toContain('a@b.c');
  });
});
