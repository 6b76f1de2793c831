/**
 * Turns what a bridge reports into audit records: matched text is replaced by
 * its keyed digest right here and goes no further (DESIGN.md invariant 7).
 */
import type { Digester } from '../audit/audit-digest.ts';
import type { PageGuardEvent, StreamRef } from '../protocol/guard-reports.ts';
import type { AuditRecord } from '../protocol/runtime-messages.ts';
import type { RuleKind } from '../core/rules/rule.ts';
import type { ContentSender } from './sender-check.ts';

export async function recordsFromGuardEvents(
  events: readonly PageGuardEvent[],
  stream: StreamRef,
  sender: ContentSender,
  digest: Digester,
  time: number,
): Promise<AuditRecord[]> {
  const base = {
    time,
    site: sender.site,
    tabId: sender.tabId,
    conversationId: stream.conversationId,
    turnId: stream.turnId,
    streamId: stream.streamId,
    direction: stream.direction,
    format: stream.format,
  };
  const records: AuditRecord[] = [];
  for (const event of events) {
    if (event.type === 'match') {
      records.push({
        ...base,
        rule: event.rule,
        kind: event.kind,
        action: event.action,
        start: event.start,
        end: event.end,
        length: event.end - event.start,
        digest: await digest(event.matched),
        pack: event.pack,
        ...(event.also !== undefined ? { also: [...event.also] } : {}),
      });
    } else {
      records.push({
        ...base,
        rule: event.rule ?? '',
        kind: 'error',
        action: 'error',
        start: event.at,
        end: event.at,
        length: 0,
        digest: '',
        pack: event.pack,
      });
    }
  }
  return records;
}

/** Issue 5: the person sent despite a warning; one record per finding, by digest. */
export async function recordsFromSendAnyway(
  findings: readonly { rule: string; kind: RuleKind; matched: string }[],
  sender: ContentSender,
  digest: Digester,
  time: number,
): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  for (const finding of findings) {
    records.push({
      time,
      site: sender.site,
      tabId: sender.tabId,
      conversationId: '',
      turnId: '',
      streamId: '',
      direction: 'out',
      format: '',
      rule: finding.rule,
      kind: finding.kind,
      action: 'send-anyway',
      start: 0,
      end: 0,
      length: [...finding.matched].length,
      digest: await digest(finding.matched),
      pack: '',
    });
  }
  return records;
}
