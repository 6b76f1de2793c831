/**
 * The background's behaviour, independent of how the browser delivers events
 * (service-worker.ts wires it to the real APIs; unit tests to fakes): answers
 * the bridge and the UI, keeps scripts registered for the sites switched on,
 * writes the audit log through one writer, and feeds the badge and the live port.
 */
import type { Runtime } from 'webextension-polyfill';
import { openAuditDb, type AuditDb } from '../audit/audit-db.ts';
import { toCsvExport, toJsonExport } from '../audit/audit-export.ts';
import {
  addBatch,
  clearRecords,
  countRecords,
  countSince,
  dropOldest,
  queryRecords,
} from '../audit/audit-store.ts';
import { AuditWriter } from '../audit/audit-writer.ts';
import type {
  AuditRecord,
  BackgroundError,
  BackgroundToContent,
  ContentAnswers,
  ContentToBackground,
  TabState,
  UiAnswers,
  UiToBackground,
} from '../protocol/runtime-messages.ts';
import type { CompiledPageRules, Settings } from '../protocol/settings-schema.ts';
import { AnswerTally } from './answer-counts.ts';
import { lazyDigester } from './audit-key.ts';
import { recordsFromGuardEvents, recordsFromSendAnyway } from './audit-records.ts';
import { LivePorts } from './live-ports.ts';
import {
  ManagedPolicySource,
  recordsFromManagedIssues,
  type ManagedArea,
} from './managed-policy-source.ts';
import { parseContentMessage, parseUiMessage } from './message-shape.ts';
import { EXPORT_SETTINGS_KEY, OtlpExporter, type OtlpExporterDeps } from './otlp-exporter.ts';
import {
  adoptCompiledRules,
  compiledRulesComputed,
  compiledRulesFor,
  compiledRulesKey,
  hasCompiledRules,
  isSiteEnabled,
  pageConfigFor,
} from './page-config.ts';
import { UNAVAILABLE, relayReferenceOnly } from './reference-only-relay.ts';
import { ReferenceOnlyStore } from './reference-only-store.ts';
import {
  ensureDefaultSettings,
  readSettings,
  writeSettings,
  SETTINGS_KEY,
  type SettingsStorage,
} from './settings.ts';
import {
  syncRegistration,
  sitePatterns,
  type RegistrationResult,
  type ScriptingApi,
} from './script-registration.ts';
import {
  checkContentSender,
  checkUiSender,
  type ContentSender,
  type ExtensionIdentity,
  type SenderFacts,
} from './sender-check.ts';
import { isSiteKey, siteOf } from './site-key.ts';
import { TabActivity } from './tab-activity.ts';

/** storage.session key of the tab counters. */
export const TAB_ACTIVITY_KEY = 'tabActivity';
/** storage.session key of the answer counts per tab and site (issue 18). */
export const ANSWER_COUNTS_KEY = 'answerCounts';
/**
 * storage.session key of the pages' compiled pack and warm tables (issue 19 §4):
 * `{ key, rules, computed }`, where `computed` counts how often a worker of this
 * browser session built them (the e2e tests read it from an extension page;
 * storage.session is not readable by content scripts or pages).
 */
export const PAGE_RULES_KEY = 'pageRules';

/** What PAGE_RULES_KEY holds. */
export interface StoredPageRules {
  key: string;
  rules: CompiledPageRules;
  computed: number;
}

function isStoredPageRules(value: unknown): value is StoredPageRules {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.key === 'string' &&
    typeof v.rules === 'object' &&
    v.rules !== null &&
    Number.isSafeInteger(v.computed)
  );
}

export interface BackgroundDeps {
  storage: SettingsStorage;
  scripting: ScriptingApi;
  /** `permissions.contains({ origins })`. */
  hasOrigins(patterns: string[]): Promise<boolean>;
  setBadge(tabId: number, text: string): Promise<void>;
  /** The URL of a tab, when the browser tells us (for tab-state). */
  tabUrl(tabId: number): Promise<string | undefined>;
  identity(): ExtensionIdentity;
  /** `action.openPopup()`; false when the browser refuses (e.g. no user gesture). */
  openPopup(): Promise<boolean>;
  /** `storage.session` (in-memory, extension contexts only) for the tab counters. */
  session?: SettingsStorage;
  /** `tabs.sendMessage(tabId, message, { frameId: 0 })`: popup requests relayed to a tab's bridge. */
  sendToTab?(tabId: number, message: BackgroundToContent): Promise<unknown>;
  openDb?: () => Promise<AuditDb>;
  /** Issue 21 §1: `storage.managed`, the organisation's policy (absent: none). */
  managed?: ManagedArea;
  now?: () => number;
  batchDelayMs?: number;
  /** Issue 21 §2: what the OTLP audit export needs from the browser (absent: no export). */
  otlp?: Pick<OtlpExporterDeps, 'fetch' | 'alarms' | 'version' | 'backoff' | 'batchDelayMs'>;
}

type Answer<T> = T | BackgroundError;

function startOfLocalDay(now: number): number {
  const day = new Date(now);
  day.setHours(0, 0, 0, 0);
  return day.getTime();
}

export class GuardBackground {
  readonly live: LivePorts;
  private readonly activity = new TabActivity();
  /** Issue 18: answers guarded per tab and site, by how (answer-counts.ts). */
  private readonly answers = new AnswerTally();
  private readonly digester;
  /** Issue 5 §3: reference-only marks by keyed digest (reference-only-store.ts). */
  private readonly referenceOnly: ReferenceOnlyStore;
  private readonly writer: AuditWriter;
  /** Issue 21 §1: the organisation's policy, applied over every settings read. */
  private readonly managed: ManagedPolicySource;
  /** Issue 21 §2: the audit export over OTLP/HTTP (otlp-exporter.ts). */
  readonly otlp: OtlpExporter | undefined;
  private readonly db: () => Promise<AuditDb>;
  private readonly now: () => number;
  /** Latest settings, refreshed on every change; read synchronously by sender checks. */
  private settings: Settings | undefined;
  private today: { day: number; count: number } | undefined;
  /** Tab counters restored from storage.session (once per worker). */
  private readonly restored: Promise<void>;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private registration: Promise<RegistrationResult | undefined> = Promise.resolve(undefined);
  /** What storage.session says was computed before this worker started (see PAGE_RULES_KEY). */
  private computedBefore = 0;

  constructor(private readonly deps: BackgroundDeps) {
    this.now = deps.now ?? Date.now;
    this.live = new LivePorts(deps.identity);
    this.digester = lazyDigester(deps.storage);
    this.referenceOnly = new ReferenceOnlyStore(deps.storage, this.now);
    let db: Promise<AuditDb> | undefined;
    this.db = () => {
      db ??= (deps.openDb ?? openAuditDb)();
      return db;
    };
    this.writer = new AuditWriter({
      sink: {
        addBatch: async (records, retention, now) => {
          const exportBound = await this.otlp?.queueBound();
          await addBatch(await this.db(), records, retention, now, exportBound);
          if (exportBound !== undefined) this.otlp?.recordsLogged();
        },
        dropOldest: async (count) => dropOldest(await this.db(), count),
        count: async () => countRecords(await this.db()),
      },
      retention: () => this.settings?.audit ?? { maxRecords: 10_000, maxAgeDays: 30 },
      now: this.now,
      ...(deps.batchDelayMs === undefined ? {} : { delayMs: deps.batchDelayMs }),
    });
    this.managed = new ManagedPolicySource(deps.managed, deps.storage, (issues) =>
      this.writer.add(recordsFromManagedIssues(issues, this.now())),
    );
    this.otlp =
      deps.otlp &&
      new OtlpExporter({
        ...deps.otlp,
        db: this.db,
        local: deps.storage,
        ...(deps.session ? { session: deps.session } : {}),
        managedEndpoint: async () => (await this.managed.read()).policy.auditExport?.endpoint,
        managedEncoding: async () => (await this.managed.read()).policy.auditExport?.encoding,
        hasOrigins: deps.hasOrigins,
        now: this.now,
      });
    this.restored = (async () => {
      const stored = await deps.session?.get(TAB_ACTIVITY_KEY).catch(() => undefined);
      this.activity.restore(stored?.[TAB_ACTIVITY_KEY]);
      const answers = await deps.session?.get(ANSWER_COUNTS_KEY).catch(() => undefined);
      this.answers.restore(answers?.[ANSWER_COUNTS_KEY]);
    })();
  }

  /** Mirrors the tab counters to storage.session, at most every 100 ms. */
  private saveActivity(): void {
    if (!this.deps.session || this.saveTimer !== undefined) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.deps.session
        ?.set({
          [TAB_ACTIVITY_KEY]: this.activity.snapshot(),
          [ANSWER_COUNTS_KEY]: this.answers.snapshot(),
        })
        .catch(() => undefined);
    }, 100);
  }

  /** Install, update or start-up: repair settings, then register scripts. */
  async start(): Promise<RegistrationResult | undefined> {
    this.settings = await ensureDefaultSettings(this.deps.storage, this.managed);
    const registered = await this.resync();
    // The first page after start-up gets its pack and warm tables without waiting for them.
    await this.pageRules(this.settings).catch(() => undefined);
    return registered;
  }

  /**
   * The pages' compiled pack and warm tables (issue 19 §4): built once per
   * browser session, not per page. Chrome stops an idle service worker, and with
   * it the module's cache (page-config.ts), so what was built is also kept in
   * storage.session and restored by the next worker; Firefox's event page is
   * unloaded when idle too. The page checks whatever it gets (load-warm-tables.ts).
   */
  private async pageRules(settings: Settings): Promise<CompiledPageRules> {
    const { config } = pageConfigFor(settings, null);
    const key = compiledRulesKey(config);
    if (!hasCompiledRules(key)) {
      const stored = await this.deps.session?.get(PAGE_RULES_KEY).catch(() => undefined);
      const restored = stored?.[PAGE_RULES_KEY];
      if (isStoredPageRules(restored)) {
        this.computedBefore = restored.computed;
        if (restored.key === key) adoptCompiledRules(key, restored.rules);
      }
    }
    const before = compiledRulesComputed();
    const rules = compiledRulesFor(config);
    if (compiledRulesComputed() !== before) {
      const record: StoredPageRules = {
        key,
        rules,
        computed: this.computedBefore + compiledRulesComputed(),
      };
      await this.deps.session?.set({ [PAGE_RULES_KEY]: record }).catch(() => undefined);
    }
    return rules;
  }

  /** Re-reads settings and re-syncs registration, one sync at a time. */
  resync(): Promise<RegistrationResult | undefined> {
    this.registration = this.registration
      .catch(() => undefined)
      .then(async () => {
        this.settings = await readSettings(this.deps.storage, this.managed);
        return syncRegistration(this.deps.scripting, this.settings, (patterns) =>
          this.deps.hasOrigins(patterns),
        );
      });
    return this.registration;
  }

  /** storage.onChanged: the settings changed (here or in another context). */
  onStorageChanged(changes: Record<string, unknown>, area: string): void {
    // Issue 21 §1: a changed managed policy applies at once (Chrome reloads policy live).
    if ((area === 'local' && SETTINGS_KEY in changes) || area === 'managed') void this.resync();
    if ((area === 'local' && EXPORT_SETTINGS_KEY in changes) || area === 'managed') {
      void this.otlp?.reconfigure().catch(() => undefined);
    }
  }

  private async currentSettings(): Promise<Settings> {
    this.settings ??= await readSettings(this.deps.storage, this.managed);
    return this.settings;
  }

  /** Runtime messages from content scripts; undefined = refused (no answer). */
  async handleContent(
    message: unknown,
    sender: SenderFacts,
  ): Promise<ContentAnswers[keyof ContentAnswers] | undefined> {
    const parsed = parseContentMessage(message);
    if (!parsed) return undefined;
    await this.restored;
    const settings = await this.currentSettings();
    const from = checkContentSender(sender, this.deps.identity(), (site) =>
      isSiteEnabled(settings, site),
    );
    if (!from) return undefined;
    return this.answerContent(parsed, from, settings);
  }

  private async answerContent(
    message: ContentToBackground,
    from: ContentSender,
    settings: Settings,
  ): Promise<ContentAnswers[keyof ContentAnswers]> {
    switch (message.type) {
      case 'page-config':
        return pageConfigFor(settings, from.site);
      case 'page-pack':
        return { compiled: await this.pageRules(settings) };
      case 'guard-events': {
        const digest = await this.digester();
        const records = await recordsFromGuardEvents(
          message.events,
          message.stream,
          from,
          digest,
          this.now(),
        );
        await this.accept(from.tabId, records);
        return { accepted: records.length };
      }
      case 'holding': {
        const holding = this.activity.setHolding(from.tabId, message.streamId, message.holding);
        this.live.post(from.tabId, { type: 'holding', holding });
        return { ok: true };
      }
      case 'stream-end': {
        const holding = this.activity.setHolding(from.tabId, message.streamId, false);
        this.live.post(from.tabId, { type: 'holding', holding });
        return { ok: true };
      }
      case 'wire-issue':
        // Content-free and not an intervention: acknowledged, not logged.
        return { ok: true };
      case 'answer-guarded': {
        // Issue 18: counted per tab and site for the popup; not an audit record.
        const answers = this.answers.add(from.tabId, from.site, message.format, message.decoded);
        this.saveActivity();
        this.live.post(from.tabId, { type: 'answers', site: from.site, answers });
        return { ok: true };
      }
      case 'open-popup':
        return { opened: await this.deps.openPopup().catch(() => false) };
      case 'send-anyway': {
        const digest = await this.digester();
        const records = await recordsFromSendAnyway(message.findings, from, digest, this.now());
        await this.accept(from.tabId, records);
        return { accepted: records.length };
      }
      case 'reference-only-load':
        return this.referenceOnly.load(from.site, message.conversation);
      case 'reference-only-save':
        await this.referenceOnly.save(from.site, message.conversation, message.marks);
        return { ok: true };
    }
  }

  /** Queues records for the log and updates the tab's counters, badge and live view. */
  private async accept(tabId: number, records: AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    this.writer.add(records);
    const state = this.activity.add(tabId, records);
    this.saveActivity();
    for (const record of records) this.live.post(tabId, { type: 'event', record });
    const today = await this.todayCount(records.length);
    this.live.post(tabId, { type: 'counters', tab: state.events, today });
    await this.updateBadge(tabId);
  }

  /**
   * Events logged since local midnight. Counted from the store once per day (and
   * after a clear), then kept up to date in memory, so batching is not defeated by
   * a flush per event.
   */
  private async todayCount(added = 0): Promise<number> {
    const day = startOfLocalDay(this.now());
    if (this.today?.day === day) {
      this.today.count += added;
      return this.today.count;
    }
    await this.writer.flush();
    const count = await countSince(await this.db(), day);
    this.today = { day, count };
    return count;
  }

  private async updateBadge(tabId: number): Promise<void> {
    const count = this.activity.get(tabId).interventions;
    await this.deps.setBadge(tabId, count > 0 ? String(count) : '').catch(() => undefined);
  }

  /** A tab started loading a new document: its counters and badge start over. */
  async onTabLoading(tabId: number): Promise<void> {
    await this.restored;
    this.activity.reset(tabId);
    this.saveActivity();
    await this.updateBadge(tabId);
  }

  async onTabRemoved(tabId: number): Promise<void> {
    await this.restored;
    this.activity.reset(tabId);
    this.answers.reset(tabId);
    this.saveActivity();
  }

  /** Runtime messages from the popup and options pages; undefined = refused. */
  async handleUi(
    message: unknown,
    sender: SenderFacts,
  ): Promise<Answer<UiAnswers[keyof UiAnswers]> | undefined> {
    if (!checkUiSender(sender, this.deps.identity())) return undefined;
    const parsed = parseUiMessage(message);
    if (!parsed) return { error: 'malformed message' };
    await this.restored;
    try {
      return await this.answerUi(parsed);
    } catch (error) {
      // Content-free: only the error's name crosses to the UI.
      return { error: error instanceof Error ? error.name : 'failed' };
    }
  }

  private async answerUi(message: UiToBackground): Promise<UiAnswers[keyof UiAnswers]> {
    switch (message.type) {
      case 'tab-state':
        return this.tabState(message.tabId);
      case 'set-site':
        return this.setSite(message.site, message.enabled);
      case 'get-settings':
        return this.currentSettings();
      case 'put-settings': {
        this.settings = await writeSettings(this.deps.storage, message.settings, this.managed);
        await this.resync();
        return this.settings;
      }
      case 'audit-query':
        await this.writer.flush();
        return queryRecords(await this.db(), message.query);
      case 'audit-export': {
        await this.writer.flush();
        const records = await queryRecords(await this.db(), message.query);
        const stamp = new Date(this.now()).toISOString().replace(/[:.]/g, '-');
        return message.format === 'json'
          ? {
              format: 'json',
              mime: 'application/json',
              fileName: `csg-audit-${stamp}.json`,
              content: toJsonExport(records, this.now()),
            }
          : {
              format: 'csv',
              mime: 'text/csv;charset=utf-8',
              fileName: `csg-audit-${stamp}.csv`,
              content: toCsvExport(records),
            };
      }
      case 'audit-clear': {
        await this.writer.flush();
        const db = await this.db();
        const cleared = await countRecords(db);
        await clearRecords(db);
        this.today = undefined;
        return { cleared };
      }
      case 'reference-only-list':
      case 'reference-only-set': {
        const send = this.deps.sendToTab;
        if (send === undefined) return UNAVAILABLE;
        const { tabId, ...rest } = message;
        const relayed: BackgroundToContent =
          rest.type === 'reference-only-set'
            ? { to: 'bridge', type: rest.type, index: rest.index, marked: rest.marked }
            : { to: 'bridge', type: rest.type };
        return relayReferenceOnly(tabId, relayed, {
          sendToTab: send,
          tabIsGuarded: async (id) => {
            const site = siteOf(await this.deps.tabUrl(id));
            return site !== null && isSiteEnabled(await this.currentSettings(), site);
          },
        });
      }
    }
  }

  async tabState(tabId: number): Promise<TabState> {
    const settings = await this.currentSettings();
    const site = siteOf(await this.deps.tabUrl(tabId)) ?? '';
    const state = this.activity.get(tabId);
    return {
      tabId,
      site,
      enabled: site !== '' && isSiteEnabled(settings, site),
      permitted: site !== '' && (await this.deps.hasOrigins(sitePatterns(site))),
      counters: { tab: state.events, today: await this.todayCount() },
      recent: [...state.recent],
      holding: state.holding.size > 0,
      answers: this.answers.get(tabId, site),
    };
  }

  private async setSite(site: string, enabled: boolean): Promise<UiAnswers['set-site']> {
    const key = site.toLowerCase();
    if (!isSiteKey(key)) throw new RangeError('not a site');
    const settings = structuredClone(await this.currentSettings());
    settings.sites[key] = { enabled };
    this.settings = await writeSettings(this.deps.storage, settings, this.managed);
    const result = await this.resync();
    return {
      site: key,
      enabled,
      permitted: await this.deps.hasOrigins(sitePatterns(key)),
      registered: result?.sites.includes(key) ?? false,
    };
  }

  /** Live port subscription: send the current state first. */
  async onLiveSubscribe(tabId: number, port: Runtime.Port): Promise<void> {
    await this.restored;
    const state = this.activity.get(tabId);
    port.postMessage({ type: 'holding', holding: state.holding.size > 0 });
    port.postMessage({ type: 'counters', tab: state.events, today: await this.todayCount() });
  }

  /** Writes everything queued (tests; an event page about to be suspended). */
  flush(): Promise<void> {
    return this.writer.flush();
  }
}
