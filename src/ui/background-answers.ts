/**
 * Shape checks of what the background answers (src/protocol/runtime-messages.ts).
 * The background is ours, but an older or half-started worker can answer
 * something else; the UI then says so instead of rendering undefined fields.
 */
import type {
  AnswerCounts,
  AuditRecord,
  BackgroundToLive,
  TabState,
  UiAnswers,
} from '../protocol/runtime-messages.ts';
import type { Settings } from '../protocol/settings-schema.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export function isAuditRecord(value: unknown): value is AuditRecord {
  return (
    isRecord(value) &&
    typeof value.time === 'number' &&
    typeof value.site === 'string' &&
    typeof value.rule === 'string' &&
    typeof value.kind === 'string' &&
    typeof value.action === 'string' &&
    (value.direction === 'in' || value.direction === 'out')
  );
}

export function isAuditRecords(value: unknown): value is AuditRecord[] {
  return Array.isArray(value) && value.every(isAuditRecord);
}

/** Issue 18: the answer counts of a site (adapters by format id, generic, undecodable). */
export function isAnswerCounts(value: unknown): value is AnswerCounts {
  return (
    isRecord(value) &&
    isRecord(value.adapters) &&
    Object.values(value.adapters).every(isCount) &&
    isCount(value.generic) &&
    isCount(value.undecodable)
  );
}

export function isTabState(value: unknown): value is TabState {
  return (
    isRecord(value) &&
    typeof value.tabId === 'number' &&
    typeof value.site === 'string' &&
    typeof value.enabled === 'boolean' &&
    typeof value.permitted === 'boolean' &&
    isRecord(value.counters) &&
    isCount(value.counters.tab) &&
    isCount(value.counters.today) &&
    isAuditRecords(value.recent) &&
    typeof value.holding === 'boolean' &&
    (value.answers === undefined || isAnswerCounts(value.answers))
  );
}

export function isSetSiteAnswer(value: unknown): value is UiAnswers['set-site'] {
  return (
    isRecord(value) &&
    typeof value.site === 'string' &&
    typeof value.enabled === 'boolean' &&
    typeof value.permitted === 'boolean'
  );
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

export function isSettings(value: unknown): value is Settings {
  if (!isRecord(value) || value.version !== 1 || !isRecord(value.sites)) return false;
  const { policy, packs, audit } = value;
  return (
    isRecord(policy) &&
    isRecord(policy.incoming) &&
    isRecord(policy.outgoing) &&
    isStringArray(value.allowedImageHosts) &&
    isRecord(packs) &&
    isRecord(packs.enabled) &&
    isStringArray(packs.disabledRules) &&
    Array.isArray(packs.custom) &&
    isRecord(audit) &&
    isCount(audit.maxRecords) &&
    isCount(audit.maxAgeDays)
  );
}

export function isExportAnswer(value: unknown): value is UiAnswers['audit-export'] {
  return isRecord(value) && typeof value.content === 'string' && typeof value.mime === 'string';
}

export function isClearAnswer(value: unknown): value is UiAnswers['audit-clear'] {
  return isRecord(value) && isCount(value.cleared);
}

export function isLiveMessage(value: unknown): value is BackgroundToLive {
  if (!isRecord(value)) return false;
  switch (value.type) {
    case 'event':
      return isAuditRecord(value.record);
    case 'holding':
      return typeof value.holding === 'boolean';
    case 'counters':
      return isCount(value.tab) && isCount(value.today);
    case 'answers':
      return typeof value.site === 'string' && isAnswerCounts(value.answers);
    default:
      return false;
  }
}
