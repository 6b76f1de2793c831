/** Audit records for tests: content-free, with times and ids chosen by the test. */
import type { AuditRecord } from '../../../src/protocol/runtime-messages.ts';

export function auditRecord(time: number, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    time,
    site: 'chatgpt.com',
    tabId: 1,
    conversationId: 'conv-1',
    turnId: 'turn-1',
    streamId: 'stream-1',
    direction: 'in',
    format: 'openai-chat',
    rule: 'github-pat',
    kind: 'secret',
    action: 'redact',
    start: 10,
    end: 50,
    length: 40,
    digest: '0123456789abcdef0123456789abcdef',
    pack: 'core',
    ...overrides,
  };
}
