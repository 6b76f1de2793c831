/**
 * Messages between extension contexts over `runtime` messaging: the bridge
 * (content script) → background, the UI (popup/options) → background, and the
 * background → popup live port. Typed and directional; the background checks
 * the sender of every message (src/background/sender-check.ts) and answers
 * the page-facing bridge only with what the page may know.
 */
import type { RuleKind } from '../core/rules/rule.ts';
import type { PageGuardEvent, StreamOutcome, StreamRef } from './page-channel.ts';
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
    };

/** Background → bridge (`tabs.sendMessage`). */
export type BackgroundToContent =
  /** Issue 5: the person pressed the "Paste as untrusted" command; the next paste is wrapped. */
  { to: 'bridge'; type: 'paste-as-untrusted' };

export function isBackgroundToContent(message: unknown): message is BackgroundToContent {
  const m = message as { to?: unknown; type?: unknown } | null;
  return (
    typeof m === 'object' && m !== null && m.to === 'bridge' && m.type === 'paste-as-untrusted'
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
}

export interface AuditQuery {
  site?: string;
  kind?: AuditRecord['kind'];
  action?: AuditRecord['action'];
  /** Only records at or after this time. */
  since?: number;
  limit?: number;
}

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
}

/** UI (popup/options) → background. */
export type UiToBackground =
  | { to: 'background'; type: 'tab-state'; tabId: number }
  | { to: 'background'; type: 'set-site'; site: string; enabled: boolean }
  | { to: 'background'; type: 'get-settings' }
  | { to: 'background'; type: 'put-settings'; settings: Settings }
  | { to: 'background'; type: 'audit-query'; query: AuditQuery }
  | { to: 'background'; type: 'audit-export'; format: 'json' | 'csv'; query: AuditQuery }
  | { to: 'background'; type: 'audit-clear' };

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
}

/** Background → popup over the live port named `LIVE_PORT_NAME` (tab id sent on connect). */
export const LIVE_PORT_NAME = 'csg-live';
export type BackgroundToLive =
  | { type: 'event'; record: AuditRecord }
  | { type: 'holding'; holding: boolean }
  | { type: 'counters'; tab: number; today: number };

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
  'open-popup': OpenPopupAnswer;
  'send-anyway': { accepted: number };
}

export interface BackgroundError {
  error: string;
}

/** The ids under which the background registers the two content scripts. */
export const CONTENT_SCRIPT_IDS = { main: 'csg-main-world', bridge: 'csg-bridge' } as const;
