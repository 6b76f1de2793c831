/**
 * Shape checks for incoming runtime messages. A message passes only when every
 * field has the declared type and a bounded size; anything else is refused whole.
 * The bridge relays what the MAIN world reports, so nothing in these messages is
 * trusted further than its type (DESIGN.md §1: the page must not forge events).
 */
import { RULE_KINDS, type RuleKind } from '../core/rules/rule.ts';
import type { PageGuardEvent, StreamOutcome, StreamRef } from '../protocol/guard-reports.ts';
import type {
  AuditQuery,
  AuditRecord,
  ContentToBackground,
  UiToBackground,
} from '../protocol/runtime-messages.ts';
import { MAX_CONVERSATION_LENGTH, isStoredMarkList } from './reference-only-store.ts';

type Plain = Record<string, unknown>;

/** Limits on what one message may carry. */
export const MESSAGE_LIMITS = {
  events: 500,
  findings: 100,
  idLength: 200,
  /** Matched text longer than the longest rule match (validate-pack MAX_MATCH_LENGTH). */
  matchedLength: 65_536,
  messageLength: 500,
  /** Rules one merged redaction can name besides its own: more than any pack holds. */
  alsoRules: 1_000,
} as const;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isShortString(value: unknown, max: number = MESSAGE_LIMITS.idLength): value is string {
  return typeof value === 'string' && value.length <= max;
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isKind(value: unknown): value is RuleKind {
  return typeof value === 'string' && (RULE_KINDS as readonly string[]).includes(value);
}

function isStreamRef(value: unknown): value is StreamRef {
  return (
    isPlain(value) &&
    isShortString(value.streamId) &&
    value.streamId.length > 0 &&
    (value.direction === 'in' || value.direction === 'out') &&
    isShortString(value.format) &&
    isShortString(value.conversationId) &&
    isShortString(value.turnId)
  );
}

const STREAM_OUTCOMES: readonly string[] = [
  'complete',
  'blocked',
  'failed',
  'aborted',
] satisfies StreamOutcome[];

const MATCH_ACTIONS: readonly string[] = ['redact', 'block', 'flag', 'warn'];

/** Issue 17: the rules a merged redaction also covered; a short list of rule ids. */
function isRuleList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length <= MESSAGE_LIMITS.alsoRules &&
    value.every((rule) => isShortString(rule))
  );
}

function isGuardEvent(value: unknown): value is PageGuardEvent {
  if (!isPlain(value)) return false;
  if (value.type === 'match') {
    return (
      isShortString(value.rule) &&
      isKind(value.kind) &&
      typeof value.action === 'string' &&
      MATCH_ACTIONS.includes(value.action) &&
      isOffset(value.start) &&
      isOffset(value.end) &&
      value.end >= value.start &&
      isShortString(value.pack) &&
      isShortString(value.matched, MESSAGE_LIMITS.matchedLength) &&
      (value.also === undefined || isRuleList(value.also))
    );
  }
  if (value.type === 'error') {
    return (
      (value.rule === undefined || isShortString(value.rule)) &&
      isShortString(value.message, MESSAGE_LIMITS.messageLength) &&
      isOffset(value.at) &&
      isShortString(value.pack)
    );
  }
  return false;
}

function isFinding(value: unknown): boolean {
  return (
    isPlain(value) &&
    isShortString(value.rule) &&
    isKind(value.kind) &&
    isShortString(value.matched, MESSAGE_LIMITS.matchedLength)
  );
}

/** A wire format id as the guard names it (`openai-chat`, `generic`, `plain-text`…). */
export function isFormatId(value: unknown): value is string {
  return typeof value === 'string' && /^[a-z0-9][a-z0-9-]{0,39}$/.test(value);
}

function isBoundedList(value: unknown, max: number, item: (v: unknown) => boolean): boolean {
  return Array.isArray(value) && value.length <= max && value.every(item);
}

export function parseContentMessage(message: unknown): ContentToBackground | null {
  if (!isPlain(message) || message.to !== 'background') return null;
  switch (message.type) {
    case 'page-config':
      return { to: 'background', type: 'page-config' };
    case 'page-pack':
      return { to: 'background', type: 'page-pack' };
    case 'guard-events':
      return isStreamRef(message.stream) &&
        isBoundedList(message.events, MESSAGE_LIMITS.events, isGuardEvent)
        ? (message as ContentToBackground)
        : null;
    case 'holding':
      return isShortString(message.streamId) && typeof message.holding === 'boolean'
        ? (message as ContentToBackground)
        : null;
    case 'stream-end':
      return isShortString(message.streamId) &&
        typeof message.outcome === 'string' &&
        STREAM_OUTCOMES.includes(message.outcome)
        ? (message as ContentToBackground)
        : null;
    case 'wire-issue':
      return isShortString(message.streamId) &&
        isShortString(message.kind) &&
        isShortString(message.detail, MESSAGE_LIMITS.messageLength)
        ? (message as ContentToBackground)
        : null;
    case 'answer-guarded':
      return isFormatId(message.format) && typeof message.decoded === 'boolean'
        ? {
            to: 'background',
            type: 'answer-guarded',
            format: message.format,
            decoded: message.decoded,
          }
        : null;
    case 'open-popup':
      return { to: 'background', type: 'open-popup' };
    case 'send-anyway':
      return isBoundedList(message.findings, MESSAGE_LIMITS.findings, isFinding)
        ? (message as ContentToBackground)
        : null;
    case 'reference-only-load':
      return isShortString(message.conversation, MAX_CONVERSATION_LENGTH)
        ? { to: 'background', type: 'reference-only-load', conversation: message.conversation }
        : null;
    case 'reference-only-save':
      return isShortString(message.conversation, MAX_CONVERSATION_LENGTH) &&
        isStoredMarkList(message.marks)
        ? {
            to: 'background',
            type: 'reference-only-save',
            conversation: message.conversation,
            marks: message.marks,
          }
        : null;
    default:
      return null;
  }
}

const AUDIT_KINDS: readonly string[] = [...RULE_KINDS, 'error'];
const AUDIT_ACTIONS: readonly string[] = [
  'redact',
  'block',
  'flag',
  'warn',
  'send-anyway',
  'error',
] satisfies AuditRecord['action'][];

function isAuditQuery(value: unknown): value is AuditQuery {
  return (
    isPlain(value) &&
    (value.site === undefined || isShortString(value.site)) &&
    (value.kind === undefined ||
      (typeof value.kind === 'string' && AUDIT_KINDS.includes(value.kind))) &&
    (value.action === undefined ||
      (typeof value.action === 'string' && AUDIT_ACTIONS.includes(value.action))) &&
    (value.since === undefined ||
      (typeof value.since === 'number' && Number.isFinite(value.since))) &&
    (value.limit === undefined || isOffset(value.limit))
  );
}

export function parseUiMessage(message: unknown): UiToBackground | null {
  if (!isPlain(message) || message.to !== 'background') return null;
  switch (message.type) {
    case 'tab-state':
      return isOffset(message.tabId) ? (message as UiToBackground) : null;
    case 'set-site':
      return isShortString(message.site, 253) && typeof message.enabled === 'boolean'
        ? (message as UiToBackground)
        : null;
    case 'get-settings':
    case 'audit-clear':
      return { to: 'background', type: message.type };
    case 'put-settings':
      // normaliseSettings repairs any shape; only its presence is checked here.
      return 'settings' in message ? (message as UiToBackground) : null;
    case 'audit-query':
      return isAuditQuery(message.query) ? (message as UiToBackground) : null;
    case 'audit-export':
      return (message.format === 'json' || message.format === 'csv') && isAuditQuery(message.query)
        ? (message as UiToBackground)
        : null;
    case 'reference-only-list':
      return isOffset(message.tabId)
        ? { to: 'background', type: 'reference-only-list', tabId: message.tabId }
        : null;
    case 'reference-only-set':
      return isOffset(message.tabId) &&
        isOffset(message.index) &&
        typeof message.marked === 'boolean'
        ? {
            to: 'background',
            type: 'reference-only-set',
            tabId: message.tabId,
            index: message.index,
            marked: message.marked,
          }
        : null;
    default:
      return null;
  }
}
