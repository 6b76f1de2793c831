/**
 * The bridge's validator for what arrives from the MAIN world. The port is
 * private (page-channel-handshake.ts), but the MAIN world shares its JavaScript
 * world with the page, so nothing it sends is trusted: every field is checked
 * for type, range and size, and a fresh object holding only the known fields is
 * returned. Anything else is `undefined` and dropped (src/protocol/page-channel.ts).
 */
import { RULE_KINDS, type RuleKind } from '../core/rules/rule.ts';
import {
  PAGE_CHANNEL_VERSION,
  type Direction,
  type PageGuardEvent,
  type PageMatchEvent,
  type PageToBridge,
  type StreamOutcome,
  type StreamRef,
} from '../protocol/page-channel.ts';

/** Size bounds: generous for real use, small enough that a flood stays cheap. */
export const PAGE_MESSAGE_LIMITS = {
  /** Ids (stream, request): random tokens. */
  id: 64,
  /** Short names: rule ids, formats, pack labels, hook names, issue kinds. */
  name: 256,
  /** Content-free descriptions (error messages, wire-issue details). */
  detail: 512,
  /** Matched text (a secret, an URL): hashed by the background, never stored. */
  matched: 16_384,
  /** Events in one `guard-events` message. */
  events: 1_000,
  /** Hooks in `hello`, findings in `confirm-send`. */
  list: 64,
} as const;

/** Bounds of `outgoing-lookup`: a request's message texts (a long conversation, long pastes). */
export const OUTGOING_LOOKUP_LIMITS = { texts: 10_000, text: 4_000_000 } as const;

const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
const MATCH_ACTIONS: readonly PageMatchEvent['action'][] = ['redact', 'block', 'flag', 'warn'];
const OUTCOMES: readonly StreamOutcome[] = ['complete', 'blocked', 'failed', 'aborted'];
const DIRECTIONS: readonly Direction[] = ['in', 'out'];

type Fields = Record<string, unknown>;

/**
 * The object's own enumerable fields, on an object without a prototype: nothing
 * inherited (a forged prototype, `__proto__`) can stand in for a missing field.
 */
function recordOf(value: unknown): Fields | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.assign(Object.create(null) as Fields, value);
}

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length <= max;
}

function isName(value: unknown): value is string {
  return isText(value, PAGE_MESSAGE_LIMITS.name) && value.length > 0;
}

function isId(value: unknown): value is string {
  return isText(value, PAGE_MESSAGE_LIMITS.id) && ID_PATTERN.test(value);
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isOneOf<T extends string>(value: unknown, options: readonly T[]): value is T {
  return typeof value === 'string' && (options as readonly string[]).includes(value);
}

function isKind(value: unknown): value is RuleKind {
  return isOneOf(value, RULE_KINDS);
}

function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function parseStreamRef(input: unknown): StreamRef | undefined {
  const value = recordOf(input);
  if (!value) return undefined;
  const { streamId, direction, format, conversationId, turnId } = value;
  if (!isId(streamId) || !isOneOf(direction, DIRECTIONS) || !isName(format)) return undefined;
  if (!isText(conversationId, PAGE_MESSAGE_LIMITS.name)) return undefined;
  if (!isText(turnId, PAGE_MESSAGE_LIMITS.name)) return undefined;
  return { streamId, direction, format, conversationId, turnId };
}

function parseMatchEvent(value: Fields): PageMatchEvent | undefined {
  const { rule, kind, action, start, end, pack, matched } = value;
  if (!isName(rule) || !isKind(kind) || !isOneOf(action, MATCH_ACTIONS) || !isName(pack)) {
    return undefined;
  }
  if (!isOffset(start) || !isOffset(end) || end < start) return undefined;
  if (!isText(matched, PAGE_MESSAGE_LIMITS.matched)) return undefined;
  // The matched text must be exactly the span the offsets name (code points).
  if (codePointLength(matched) !== end - start) return undefined;
  return { type: 'match', rule, kind, action, start, end, pack, matched };
}

function parseGuardEvent(input: unknown): PageGuardEvent | undefined {
  const value = recordOf(input);
  if (!value) return undefined;
  if (value.type === 'match') return parseMatchEvent(value);
  if (value.type !== 'error') return undefined;
  const { rule, message, at, pack } = value;
  if (!isText(message, PAGE_MESSAGE_LIMITS.detail) || !isOffset(at) || !isName(pack)) {
    return undefined;
  }
  if (rule === undefined) return { type: 'error', message, at, pack };
  if (!isName(rule)) return undefined;
  return { type: 'error', rule, message, at, pack };
}

/** Every element parsed, or undefined when any one is invalid or the list is too long. */
function parseList<T>(value: unknown, max: number, parse: (item: unknown) => T | undefined) {
  if (!Array.isArray(value) || value.length > max) return undefined;
  const out: T[] = [];
  for (const item of value as unknown[]) {
    const parsed = parse(item);
    if (parsed === undefined) return undefined;
    out.push(parsed);
  }
  return out;
}

function parseFinding(
  input: unknown,
): { rule: string; kind: RuleKind; matched: string } | undefined {
  const value = recordOf(input);
  if (!value) return undefined;
  const { rule, kind, matched } = value;
  if (!isName(rule) || !isKind(kind) || !isText(matched, PAGE_MESSAGE_LIMITS.matched)) {
    return undefined;
  }
  return { rule, kind, matched };
}

/** A valid message from the MAIN world, rebuilt from its known fields; undefined otherwise. */
export function parsePageMessage(input: unknown): PageToBridge | undefined {
  const value = recordOf(input);
  if (!value || value.v !== PAGE_CHANNEL_VERSION) return undefined;
  switch (value.type) {
    case 'hello': {
      const hooks = parseList(value.hooks, PAGE_MESSAGE_LIMITS.list, (h) =>
        isName(h) ? h : undefined,
      );
      return hooks && { v: 1, type: 'hello', hooks };
    }
    case 'guard-events': {
      const stream = parseStreamRef(value.stream);
      const events = parseList(value.events, PAGE_MESSAGE_LIMITS.events, parseGuardEvent);
      if (!stream || !events || events.length === 0) return undefined;
      return { v: 1, type: 'guard-events', stream, events };
    }
    case 'holding': {
      const { streamId, holding } = value;
      if (!isId(streamId) || typeof holding !== 'boolean') return undefined;
      return { v: 1, type: 'holding', streamId, holding };
    }
    case 'stream-end': {
      const { streamId, outcome } = value;
      if (!isId(streamId) || !isOneOf(outcome, OUTCOMES)) return undefined;
      return { v: 1, type: 'stream-end', streamId, outcome };
    }
    case 'wire-issue': {
      const { streamId, kind, detail } = value;
      if (!isId(streamId) || !isName(kind) || !isText(detail, PAGE_MESSAGE_LIMITS.detail)) {
        return undefined;
      }
      return { v: 1, type: 'wire-issue', streamId, kind, detail };
    }
    case 'confirm-send': {
      const { requestId } = value;
      const findings = parseList(value.findings, PAGE_MESSAGE_LIMITS.list, parseFinding);
      if (!isId(requestId) || !findings) return undefined;
      return { v: 1, type: 'confirm-send', requestId, findings };
    }
    case 'outgoing-lookup': {
      // Issue 5 (content/outgoing-bridge.ts): the request's texts, matched in memory, never kept.
      const { requestId } = value;
      const text = (t: unknown) => (isText(t, OUTGOING_LOOKUP_LIMITS.text) ? t : undefined);
      const texts = parseList(value.texts, OUTGOING_LOOKUP_LIMITS.texts, text);
      const history = parseList(value.history, OUTGOING_LOOKUP_LIMITS.texts, text);
      if (!isId(requestId) || !texts || !history) return undefined;
      return { v: 1, type: 'outgoing-lookup', requestId, texts, history };
    }
    default:
      return undefined;
  }
}
