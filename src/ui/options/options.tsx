import { useEffect, useRef, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import { builtinPackSources } from '../../core/rules/builtin-packs.ts';
import type { Settings } from '../../protocol/settings-schema.ts';
import {
  clearAudit,
  exportAudit,
  getSettings,
  putSettings,
  setSite,
} from '../background-client.ts';
import { auditExportFileName, auditExportMime, packFileName } from '../download-name.ts';
import { downloadText } from '../download-file.ts';
import { t } from '../i18n.ts';
import { useManagedPolicy } from '../managed-policy-client.ts';
import type { ManagedLocks } from '../managed-locks.ts';
import { Notice } from '../notice.tsx';
import { manifestHostPermissions, requestSitePermission } from '../permission-request.ts';
import { coveredByManifest } from '../site-permission.ts';
import { AuditSection } from './audit-section.tsx';
import { ImageHostsSection } from './image-hosts-section.tsx';
import { ManagedNotice } from './managed-notice.tsx';
import { summarisePack } from './pack-summary.ts';
import { PacksSection } from './packs-section.tsx';
import { PolicySection } from './policy-section.tsx';
import * as edits from './settings-edits.ts';
import { SitesSection } from './sites-section.tsx';

type Load = { kind: 'loading' } | { kind: 'unreachable' } | { kind: 'ready'; settings: Settings };
type PageNotice = { tone: 'info' | 'error'; text: string } | null;

export function Options() {
  const [load, setLoad] = useState<Load>({ kind: 'loading' });
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<PageNotice>(null);
  // Edits build on the newest settings, and only the newest save's answer is applied.
  const latest = useRef<Settings | null>(null);
  const saveSequence = useRef(0);

  const show = (settings: Settings) => {
    latest.current = settings;
    setLoad({ kind: 'ready', settings });
  };

  const reload = () => {
    setLoad({ kind: 'loading' });
    void getSettings().then((answer) =>
      answer.ok ? show(answer.value) : setLoad({ kind: 'unreachable' }),
    );
  };
  useEffect(reload, []);

  // Issue 21 §1: the organisation's policy; a live change re-reads the settings in force.
  const managed = useManagedPolicy(() => {
    void getSettings().then((answer) => {
      if (answer.ok) show(answer.value);
    });
  });
  const { locks } = managed;

  const save = (edit: (settings: Settings) => Settings | null): boolean => {
    const previous = latest.current;
    if (previous === null) return false;
    const next = edit(previous);
    if (next === null) return false;
    if (next === previous) return true;
    show(next);
    const sequence = ++saveSequence.current;
    void putSettings(next).then((answer) => {
      if (sequence !== saveSequence.current) return;
      if (answer.ok) {
        show(answer.value);
        setNotice({ tone: 'info', text: t('options_saved') });
      } else {
        show(previous);
        setNotice({ tone: 'error', text: t('options_not_saved') });
      }
    });
    return true;
  };

  /** Runs synchronously in the click/submit: the permission request needs the user gesture. */
  const switchSite = (site: string, enabled: boolean) => {
    const permission =
      enabled && !coveredByManifest(site, manifestHostPermissions())
        ? requestSitePermission(site)
        : Promise.resolve(true);
    setBusy(true);
    void permission
      .then(async (granted) => {
        if (!granted) {
          setNotice({ tone: 'error', text: t('options_permission_denied', site) });
          return;
        }
        const answer = await setSite(site, enabled);
        if (!answer.ok) {
          setNotice({ tone: 'error', text: t('options_not_saved') });
          return;
        }
        const settings = await getSettings();
        if (settings.ok) show(settings.value);
        setNotice(
          enabled && !answer.value.permitted
            ? { tone: 'error', text: t('options_permission_denied', site) }
            : { tone: 'info', text: t('options_saved') },
        );
      })
      .finally(() => setBusy(false));
  };

  const exportLog = (format: 'json' | 'csv') => {
    void exportAudit(format, {}).then((answer) => {
      if (!answer.ok) {
        setNotice({ tone: 'error', text: t('background_unreachable') });
        return;
      }
      const { content, mime } = answer.value;
      downloadText(
        content,
        mime || auditExportMime(format),
        auditExportFileName(format, new Date()),
      );
    });
  };

  const clearLog = () => {
    void clearAudit().then((answer) =>
      setNotice(
        answer.ok
          ? { tone: 'info', text: t('options_audit_cleared', String(answer.value.cleared)) }
          : { tone: 'error', text: t('background_unreachable') },
      ),
    );
  };

  const exportPack = (source: unknown) => {
    const pack = summarisePack(source);
    if (pack === undefined) return;
    downloadText(
      JSON.stringify(source, null, 2) + '\n',
      'application/json',
      packFileName(pack.name, pack.version),
    );
  };

  const { version } = browser.runtime.getManifest();
  return (
    <main id="csg-options" data-state={load.kind}>
      <h1 class="csg-brand">
        <img src="/assets/icon-32.png" alt="" />
        {t('options_title')}
      </h1>
      <p class="csg-muted">
        {t('version_prefix')} <span data-testid="version">{version}</span>
      </p>
      {notice ? (
        <Notice tone={notice.tone} testId="notice">
          {notice.text}
        </Notice>
      ) : null}
      <ManagedNotice locks={locks} />
      {load.kind === 'loading' ? <p class="csg-muted">{t('options_loading')}</p> : null}
      {load.kind === 'unreachable' ? (
        <>
          <Notice tone="error" testId="unreachable">
            {t('background_unreachable')}
          </Notice>
          <button type="button" onClick={reload}>
            {t('options_retry')}
          </button>
        </>
      ) : null}
      {load.kind === 'ready' ? (
        <OptionsSections
          settings={managed.enforce(load.settings)}
          locks={locks}
          busy={busy}
          switchSite={switchSite}
          save={save}
          exportLog={exportLog}
          clearLog={clearLog}
          exportPack={exportPack}
        />
      ) : null}
    </main>
  );
}

interface OptionsSectionsProps {
  settings: Settings;
  locks: ManagedLocks;
  busy: boolean;
  switchSite: (site: string, enabled: boolean) => void;
  save: (edit: (settings: Settings) => Settings | null) => boolean;
  exportLog: (format: 'json' | 'csv') => void;
  clearLog: () => void;
  exportPack: (source: unknown) => void;
}

/** The sections of the page, each control locked where the organisation decides. */
function OptionsSections(props: OptionsSectionsProps) {
  const { settings, locks, busy, switchSite, save, exportLog, clearLog, exportPack } = props;
  return (
    <>
      <SitesSection
        sites={settings.sites}
        isDefault={(site) => coveredByManifest(site, manifestHostPermissions())}
        disabled={busy}
        isLocked={locks.site}
        onAdd={(site) => switchSite(site, true)}
        onToggle={switchSite}
        onRemove={(site) => save((s) => edits.removeSite(s, site))}
      />
      <PolicySection
        policy={settings.policy}
        disabled={busy}
        locks={locks}
        onIncoming={(kind, action) => save((s) => edits.setIncomingPolicy(s, kind, action))}
        onOutgoing={(kind, action) => save((s) => edits.setOutgoingPolicy(s, kind, action))}
      />
      <ImageHostsSection
        hosts={settings.allowedImageHosts}
        disabled={busy}
        locked={locks.imageHosts}
        onAdd={(host) => save((s) => edits.addImageHost(s, host))}
        onRemove={(host) => save((s) => edits.removeImageHost(s, host))}
      />
      <PacksSection
        settings={settings}
        builtin={builtinPackSources}
        disabled={busy}
        locks={locks}
        onPackToggle={(pack, enabled) => save((s) => edits.setPackEnabled(s, pack, enabled))}
        onRuleToggle={(rule, enabled) => save((s) => edits.setRuleEnabled(s, rule, enabled))}
        onImport={(pack) => save((s) => edits.putCustomPack(s, pack))}
        onRemoveCustom={(name) => save((s) => edits.removeCustomPack(s, name))}
        onExport={exportPack}
      />
      <AuditSection
        audit={settings.audit}
        disabled={busy}
        locks={locks}
        onRetention={(field, typed) => save((s) => edits.setRetention(s, field, typed))}
        onExport={exportLog}
        onClear={clearLog}
      />
    </>
  );
}
