/**
 * The settings schema (`chrome.storage.local`, key `settings`), shared by the
 * background, the bridge (which hands the page its part) and the UI. Pure data
 * and pure functions: no extension APIs here. Documented in docs/settings.md.
 */
import { combineKindPolicy } from '../core/guard/kind-policy.ts';
import type { RuleKind } from '../core/rules/rule.ts';
import type { SerialisedPack } from '../core/rules/serialised-pack.ts';

export const SETTINGS_KEY = 'settings';
export const SETTINGS_VERSION = 1;

/** What the guard does with matches of one kind in answers (incoming). */
export type IncomingAction = 'redact' | 'block' | 'flag' | 'off';
/** What the guard does with matches of one kind in what the person sends (issue 5). */
export type OutgoingAction = 'redact' | 'warn' | 'block' | 'off';

export interface SiteSettings {
  /** The guard runs on this site (its scripts are registered). */
  enabled: boolean;
}

export interface PackSettings {
  /** Built-in pack name → enabled. A pack missing here is enabled. */
  enabled: Record<string, boolean>;
  /** Rule ids switched off by the person (any pack). */
  disabledRules: string[];
  /** Custom packs imported by the person (validated RulePack JSON). */
  custom: unknown[];
}

export interface AuditSettings {
  /** Most records kept; the oldest are dropped first. */
  maxRecords: number;
  /** Records older than this many days are dropped. */
  maxAgeDays: number;
}

export interface OutgoingSettings {
  /** Renderer for paste-as-untrusted envelopes (seed 000 §6). */
  envelopeRenderer: 'json' | 'quote';
  /** Pastes at least this long are wrapped automatically; 0 = only on request. */
  autoEnvelopeMinChars: number;
}

export interface Settings {
  version: typeof SETTINGS_VERSION;
  /** Site key (a host such as `chatgpt.com`, or `localhost`) → settings. */
  sites: Record<string, SiteSettings>;
  policy: {
    incoming: Record<RuleKind, IncomingAction>;
    outgoing: Record<RuleKind, OutgoingAction>;
  };
  /** Hosts Markdown images may load from (and their subdomains). */
  allowedImageHosts: string[];
  packs: PackSettings;
  audit: AuditSettings;
  outgoing: OutgoingSettings;
}

/**
 * What the MAIN world needs to guard a page: derived from Settings by the
 * background, handed to the page through the bridge. Holds no secret and
 * nothing the page could use against the person (no audit data, no key).
 */
export interface PageConfig {
  /** Settings version the config was derived from. */
  version: typeof SETTINGS_VERSION;
  incoming: Record<RuleKind, IncomingAction>;
  outgoing: Record<RuleKind, OutgoingAction>;
  allowedImageHosts: string[];
  /** Built-in packs enabled, by name. */
  packs: string[];
  disabledRules: string[];
  /** Custom packs (validated) to run besides the built-in ones. */
  customPacks: unknown[];
  envelopeRenderer: 'json' | 'quote';
  autoEnvelopeMinChars: number;
  /**
   * The packs above, compiled by the background and serialised
   * (src/core/rules/serialised-pack.ts), so the MAIN world loads them
   * (load-compiled-pack.ts) instead of bundling the compiler and the pack JSON.
   * The background sends it apart (`page-pack`, runtime-messages.ts) and the
   * bridge adds it before passing the config on; a page config without it
   * guards nothing new (the MAIN world fails its guarded streams closed).
   */
  compiled?: CompiledPageRules;
}

/** What the MAIN world guards with, compiled in the background (PageConfig.compiled). */
export interface CompiledPageRules {
  /**
   * The enabled built-in packs, minus disabled rules, plus custom packs; compiled with
   * `allowedImageHosts`. Sent only when `built` is not (the background could not build
   * the tables): the page then loads it and builds the tables itself.
   */
  pack?: SerialisedPack;
  /** The shipped source-label pack (issue 5 history projection), as a rule pack. */
  labels: { name: string; version: string; minProse: number; rules: SerialisedPack };
  /**
   * The same pack with its tables built for this config's two policies, once per
   * browser session in the background (issue 19 §4, built-tables.ts); the page
   * decodes and seeds them instead of loading the pack and building the tables.
   */
  built?: PageBuiltTables;
}

/** Built tables as they cross runtime messaging (JSON in Chrome). */
export interface PageBuiltTables {
  /** The built-tables file (built-tables.ts `encodeBuiltTables`), base64 (protocol/base64.ts). */
  tables: string;
  /**
   * The file's digest (core/rules/data-digest.ts) as the background computed it: the page
   * uses the tables only when the bytes it decoded have it (delivery intact).
   */
  digest: string;
  /**
   * The file's SHA-256 (core/rules/sha256.ts), 64 hex digits: a page with WebCrypto
   * compares this instead, natively (content/load-built-tables.ts).
   */
  sha256?: string;
}

/**
 * The chat sites of ../shared/WIRE-FORMATS.md that have a wire adapter, plus the
 * self-hosted UIs on this machine. Each maps to the match patterns the manifest's
 * `host_permissions` grants for it (a default site needs no permission prompt).
 */
export const DEFAULT_SITE_PATTERNS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'chatgpt.com': ['https://chatgpt.com/*'],
  'chat.openai.com': ['https://chat.openai.com/*'],
  'claude.ai': ['https://claude.ai/*'],
  'gemini.google.com': ['https://gemini.google.com/*'],
  'chat.deepseek.com': ['https://chat.deepseek.com/*'],
  'grok.com': ['https://grok.com/*'],
  'chat.mistral.ai': ['https://chat.mistral.ai/*'],
  'huggingface.co': ['https://huggingface.co/chat/*'],
  'chat.qwen.ai': ['https://chat.qwen.ai/*'],
  'www.kimi.com': ['https://www.kimi.com/*'],
  'www.doubao.com': ['https://www.doubao.com/*'],
  'yuanbao.tencent.com': ['https://yuanbao.tencent.com/*'],
  'www.qianwen.com': ['https://www.qianwen.com/*'],
  'chat.z.ai': ['https://chat.z.ai/*'],
  'chatglm.cn': ['https://chatglm.cn/*'],
  'www.perplexity.ai': ['https://www.perplexity.ai/*'],
  'copilot.microsoft.com': ['https://copilot.microsoft.com/*'],
  localhost: ['http://localhost/*'],
  '127.0.0.1': ['http://127.0.0.1/*'],
});

/**
 * The action one rule takes on answers, given its own action and the person's
 * policy for its kind: `off` on either side switches it off, otherwise the
 * stronger wins (the policy is a floor). Defined once, in the engine
 * (src/core/guard/kind-policy.ts), so the page, the CLI and the docs agree.
 */
export function combineIncomingAction(
  ruleAction: IncomingAction,
  policy: IncomingAction,
): IncomingAction {
  return combineKindPolicy(ruleAction, policy);
}

/**
 * The action one rule takes on what the person sends (issue 5): the kind's
 * outgoing policy as set, unless the rule itself is off. Rule actions are about
 * answers; on send, the person's policy decides (e.g. emails redacted on send).
 */
export function combineOutgoingAction(
  ruleAction: IncomingAction,
  policy: OutgoingAction,
): OutgoingAction {
  return ruleAction === 'off' ? 'off' : policy;
}
