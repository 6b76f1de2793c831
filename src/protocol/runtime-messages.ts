/**
 * Messages between extension contexts over `runtime` messaging: the bridge
 * (content script) → background, the UI (popup/options) → background, and the
 * background → popup live port. Typed and directional; the background checks
 * the sender of every message (src/background/sender-check.ts) and answers
 * the page-facing bridge only with what the page may know.
 */
import type { RuleKind } from '../core/rules/rule.ts';
import type { PageGuardEvent, StreamOutcome, StreamRef } from './guard-reports.ts';
import type { CompiledPageRules, PageConfig, Settings } from './settings-schema.ts';

/** Bridge → background. */
export type ContentToBackground =
  /** The bridge asks for the page config of its site (on start-up and after changes). */
  | { to: 'background'; type: 'page-config' }
  /**
   * The bridge asks for its site's packs compiled (PageConfig.compiled), apart from
   * `page-config`: compiling and moving the pack takes longer, and the bridge's own
   * settings (auto-envelope size) must not wait for it.
   */
  | { to: 'background'; type: 'page-pack' }
  /** Guard events from the page; `matched` is hashed by the background and dropped. */
  | { to: 'background'; type: 'guard-events'; stream: StreamRef; events: PageGuardEvent[] }
  | { to: 'background'; type: 'holding'; streamId: string; holding: boolean }
  /** A guarded stream ended (how: `StreamOutcome`); content-free. */
  | { to: 'background'; type: 'stream-end'; streamId: string; outcome: StreamOutcome }
  /** Something about the wire (unknown frame, failed render…); content-free. */
  | { to: 'background'; type: 'wire-issue'; streamId: string; kind: string; detail: string }
  /**
   * Issue 18: one answer was guarded in `format` (a wire format id, `generic` for the
   * generic structural adapter), or could not be decoded (`decoded: false`). Counted per
   * tab and site (src/background/answer-counts.ts); never logged, never any text.
   */
  | { to: 'background'; type: 'answer-guarded'; format: string; decoded: boolean }
  /**
   * The person clicked "open Chat Stream Guard" in an in-page notice. Answer:
   * `OpenPopupAnswer`; `opened: false` when `action.openPopup()` was refused
   * (it may need a user gesture), and the notice then says where the icon is.
   */
  | { to: 'background'; type: 'open-popup' }
  /** Issue 5: the person chose "send anyway" (logged by digest, never text). */
  | {
      to: 'background';
      type: 'send-anyway';
      findings: { rule: string; kind: RuleKind; matched: string }[];
    }
  /**
   * Issue 5 §3: the bridge asks for its site's reference-only key and the stored marks
   * of one conversation (its path and query; the background stores only a keyed digest
   * of it). Answer: `ReferenceOnlyLoadAnswer`.
   */
  | { to: 'background'; type: 'reference-only-load'; conversation: string }
  /** Issue 5 §3: the marks of one conversation changed; stored by keyed digest, never text. */
  | {
      to: 'background';
      type: 'reference-only-save';
      conversation: string;
      marks: StoredReferenceMark[];
    };

/**
 * One reference-only mark as stored (docs/settings.md "Reference-only marks"): the
 * message's position in the conversation and keyed digests (HMAC-SHA-256 with the
 * site's reference-only key, hex, 16 bytes) of its shown and sent text. `pending`:
 * not yet bound to the text the page sends for it (bound at the next request).
 */
export interface StoredReferenceMark {
  position: number;
  digests: string[];
  pending: boolean;
}

/** Digests per stored mark: the shown text's and the sent text's, with room for more. */
export const MAX_MARK_DIGESTS = 4;

/** Shape check of one stored mark (the background and the bridge both check what they get). */
export function isStoredReferenceMark(value: unknown): value is StoredReferenceMark {
  const m = value as Partial<StoredReferenceMark> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof m.position === 'number' &&
    Number.isSafeInteger(m.position) &&
    m.position >= 0 &&
    typeof m.pending === 'boolean' &&
    Array.isArray(m.digests) &&
    m.digests.length <= MAX_MARK_DIGESTS &&
    m.digests.every((d) => typeof d === 'string' && /^[0-9a-f]{32}$/.test(d))
  );
}

/** Answer to `reference-only-load`. */
export interface ReferenceOnlyLoadAnswer {
  /** The site's reference-only HMAC key, hex (32 bytes), derived from the install key. */
  key: string;
  marks: StoredReferenceMark[];
}

/** Issue 5 §3: one message of the tab's conversation as the popup lists it. */
export interface ReferenceOnlyItem {
  /** Position among the page's recognised messages, in document order. */
  index: number;
  role: string;
  /** A short preview for the popup only; never stored, never logged. */
  preview: string;
  marked: boolean;
}

/** The tab's markable messages (answer to the `reference-only-*` popup and bridge messages). */
export interface ReferenceOnlyList {
  /** False when the tab has no bridge that can mark messages (site not guarded, no answer). */
  available: boolean;
  items: ReferenceOnlyItem[];
}

/** Bounds of a `ReferenceOnlyList` (the bridge's previews come from the page). */
export const REFERENCE_ONLY_LIST_LIMITS = { items: 500, preview: 200, role: 32 } as const;

function isReferenceOnlyItem(value: unknown): value is ReferenceOnlyItem {
  const item = value as Partial<ReferenceOnlyItem> | null;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.index === 'number' &&
    Number.isSafeInteger(item.index) &&
    item.index >= 0 &&
    typeof item.role === 'string' &&
    item.role.length <= REFERENCE_ONLY_LIST_LIMITS.role &&
    typeof item.preview === 'string' &&
    item.preview.length <= REFERENCE_ONLY_LIST_LIMITS.preview &&
    typeof item.marked === 'boolean'
  );
}

/** Shape check of a list (the background checks the bridge's, the popup the background's). */
export function isReferenceOnlyList(value: unknown): value is ReferenceOnlyList {
  const list = value as Partial<ReferenceOnlyList> | null;
  return (
    typeof list === 'object' &&
    list !== null &&
    typeof list.available === 'boolean' &&
    Array.isArray(list.items) &&
    list.items.length <= REFERENCE_ONLY_LIST_LIMITS.items &&
    list.items.every(isReferenceOnlyItem)
  );
}

/** Background → bridge (`tabs.sendMessage`). */
export type BackgroundToContent =
  /** Issue 5: the person pressed the "Paste as untrusted" command; the next paste is wrapped. */
  | { to: 'bridge'; type: 'paste-as-untrusted' }
  /** Issue 5 §3 (from the popup): list the markable messages. Answer: `ReferenceOnlyList`. */
  | { to: 'bridge'; type: 'reference-only-list' }
  /** Issue 5 §3 (from the popup): mark or unmark message `index`. Answer: `ReferenceOnlyList`. */
  | { to: 'bridge'; type: 'reference-only-set'; index: number; marked: boolean };

export function isBackgroundToContent(message: unknown): message is BackgroundToContent {
  const m = message as { to?: unknown; type?: unknown; index?: unknown; marked?: unknown } | null;
  if (typeof m !== 'object' || m === null || m.to !== 'bridge') return false;
  if (m.type === 'paste-as-untrusted' || m.type === 'reference-only-list') return true;
  return (
    m.type === 'reference-only-set' &&
    typeof m.index === 'number' &&
    Number.isSafeInteger(m.index) &&
    m.index >= 0 &&
    typeof m.marked === 'boolean'
  );
}

/** The manifest command that arms "Paste as untrusted" (issue 5 §2). */
export const PASTE_UNTRUSTED_COMMAND = 'paste-as-untrusted';

export interface OpenPopupAnswer {
  opened: boolean;
}

export interface PageConfigAnswer {
  enabled: boolean;
  config: PageConfig;
}

export interface PagePackAnswer {
  compiled: CompiledPageRules;
}

/** One audit record as stored and shown (docs/audit-log.md). Never raw content. */
export interface AuditRecord {
  id?: number;
  /** Milliseconds since the epoch. */
  time: number;
  site: string;
  tabId: number;
  conversationId: string;
  turnId: string;
  streamId: string;
  direction: 'in' | 'out';
  format: string;
  rule: string;
  kind: RuleKind | 'error';
  action: 'redact' | 'block' | 'flag' | 'warn' | 'send-anyway' | 'error';
  start: number;
  end: number;
  length: number;
  /** HMAC-SHA-256 of the matched text with the per-install key, hex, truncated to 16 bytes. */
  digest: string;
  pack: string;
  /** Issue 17: the other rules a merged redaction covered (ids only); the record names the most specific. */
  also?: string[];
}

export interface AuditQuery {
  site?: string;
  kind?: AuditRecord['kind'];
  action?: AuditRecord['action'];
  /** Only records at or after this time. */
  since?: number;
  limit?: number;
}

/**
 * Issue 18: the answers guarded on one site in one tab, by how they were guarded.
 * `adapters`: answers a specific adapter guarded, by format id (`openai-chat`, …);
 * `generic`: answers the generic structural adapter guarded (no specific adapter: every
 * text field guarded); `undecodable`: answers that could not be decoded (stopped).
 */
export interface AnswerCounts {
  adapters: Record<string, number>;
  generic: number;
  undecodable: number;
}

/** The format id of the generic structural adapter (src/core/wire/wire-event.ts `WireFormat`). */
export const GENERIC_FORMAT = 'generic';

export interface TabState {
  tabId: number;
  site: string;
  /** True when the site has a settings entry that is on. */
  enabled: boolean;
  /** True when the extension holds host permission for the site. */
  permitted: boolean;
  counters: { tab: number; today: number };
  /** Recent events of this tab, newest last. */
  recent: AuditRecord[];
  holding: boolean;
  /** Issue 18: the answers guarded on `site` in this tab (absent from older backgrounds). */
  answers?: AnswerCounts;
}

/** UI (popup/options) → background. */
export type UiToBackground =
  | { to: 'background'; type: 'tab-state'; tabId: number }
  | { to: 'background'; type: 'set-site'; site: string; enabled: boolean }
  | { to: 'background'; type: 'get-settings' }
  | { to: 'background'; type: 'put-settings'; settings: Settings }
  | { to: 'background'; type: 'audit-query'; query: AuditQuery }
  | { to: 'background'; type: 'audit-export'; format: 'json' | 'csv'; query: AuditQuery }
  | { to: 'background'; type: 'audit-clear' }
  /** Issue 5 §3: the markable messages of tab `tabId` (relayed to its bridge). */
  | { to: 'background'; type: 'reference-only-list'; tabId: number }
  /** Issue 5 §3: mark or unmark message `index` of tab `tabId` (relayed to its bridge). */
  | {
      to: 'background';
      type: 'reference-only-set';
      tabId: number;
      index: number;
      marked: boolean;
    };

/**
 * What the background answers to each UI message (added for the popup/options
 * client, src/ui/background-client.ts). `set-site` answers the new tab-state-like
 * view of the site; `audit-export` answers the file content to download.
 */
export interface UiAnswers {
  'tab-state': TabState;
  'set-site': SetSiteAnswer;
  'get-settings': Settings;
  /** The settings as stored after `normaliseSettings`. */
  'put-settings': Settings;
  /** Newest first. */
  'audit-query': AuditRecord[];
  'audit-export': AuditExport;
  /** How many records were removed. */
  'audit-clear': { cleared: number };
  'reference-only-list': ReferenceOnlyList;
  /** The list after the change. */
  'reference-only-set': ReferenceOnlyList;
}

/** Background → popup over the live port named `LIVE_PORT_NAME` (tab id sent on connect). */
export const LIVE_PORT_NAME = 'csg-live';
export type BackgroundToLive =
  | { type: 'event'; record: AuditRecord }
  | { type: 'holding'; holding: boolean }
  | { type: 'counters'; tab: number; today: number }
  /** Issue 18: the answer counts of `site` in the tab changed. */
  | { type: 'answers'; site: string; answers: AnswerCounts };

/** Answer to `set-site`. `permitted` false: the UI must request the host permission first. */
export interface SetSiteAnswer {
  site: string;
  enabled: boolean;
  permitted: boolean;
  /** The site's scripts are registered now (enabled and permitted). */
  registered: boolean;
}

/** Answer to `audit-export`: the file content to offer for download. */
export interface AuditExport {
  format: 'json' | 'csv';
  /** `application/json` or `text/csv;charset=utf-8`. */
  mime: string;
  fileName: string;
  content: string;
}

/** What the background answers to each bridge message. */
export interface ContentAnswers {
  'page-config': PageConfigAnswer;
  'page-pack': PagePackAnswer;
  'guard-events': { accepted: number };
  holding: { ok: true };
  'stream-end': { ok: true };
  'wire-issue': { ok: true };
  'answer-guarded': { ok: true };
  'open-popup': OpenPopupAnswer;
  'send-anyway': { accepted: number };
  'reference-only-load': ReferenceOnlyLoadAnswer;
  'reference-only-save': { ok: true };
}

export interface BackgroundError {
  error: string;
}

/** The ids under which the background registers the three content scripts. */
export const CONTENT_SCRIPT_IDS = {
  main: 'csg-main-world',
  bridge: 'csg-bridge',
  engine: 'csg-guard-engine',
} as const;
