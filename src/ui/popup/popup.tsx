import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import type { AuditRecord, TabState } from '../../protocol/runtime-messages.ts';
import {
  type AuditFilter,
  NO_FILTER,
  filterQuery,
  filterRecords,
  matchesFilter,
} from '../audit-filter.ts';
import { connectLive, getTabState, queryAudit, setSite } from '../background-client.ts';
import { t } from '../i18n.ts';
import { useManagedPolicy } from '../managed-policy-client.ts';
import { Notice } from '../notice.tsx';
import { requestSitePermission } from '../permission-request.ts';
import { AnswersPanel } from './answers-panel.tsx';
import { CountersPanel } from './counters-panel.tsx';
import { type CurrentTab, currentTab } from './current-tab.ts';
import { LiveEvents } from './live-events.tsx';
import { type LiveView, applyLiveMessage, liveViewOf } from './live-view.ts';
import { RecentLog } from './recent-log.tsx';
import { ReferenceOnlyPanel } from './reference-only-panel.tsx';
import { type SiteState, SiteStatus } from './site-status.tsx';
import { SignedSendsNote } from './signed-sends-note.tsx';
import { LowConfidenceNote } from './low-confidence-note.tsx';
import { UnguardedSiteNote } from './unguarded-site-note.tsx';
import { SiteToggle } from './site-toggle.tsx';

/** Audit records the popup lists (the options page exports the whole log). */
const RECENT_LIMIT = 20;

type View =
  | { kind: 'loading' }
  | { kind: 'no-tab' }
  | { kind: 'unreachable'; tab: CurrentTab }
  | { kind: 'ready'; tab: CurrentTab; state: TabState };

type PopupNotice = { tone: 'info' | 'error'; key: string } | null;

function siteStateOf(view: View): SiteState {
  switch (view.kind) {
    case 'loading':
    case 'no-tab':
      return 'unsupported';
    case 'unreachable':
      return 'unreachable';
    case 'ready':
      if (view.state.site === '') return 'unsupported';
      if (!view.state.enabled) return 'inactive';
      return view.state.permitted ? 'active' : 'no-permission';
  }
}

export function Popup() {
  const [view, setView] = useState<View>({ kind: 'loading' });
  const [live, setLive] = useState<LiveView | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<PopupNotice>(null);
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const [log, setLog] = useState<AuditRecord[] | 'unreachable'>([]);
  // The live port outlives filter changes: it reads the current filter through a ref.
  const filterRef = useRef(filter);
  filterRef.current = filter;
  // Issue 21 §1: a site the organisation forces on or off cannot be switched here.
  const viewRef = useRef(view);
  viewRef.current = view;
  const { locks } = useManagedPolicy(() => {
    const shown = viewRef.current;
    if (shown.kind !== 'ready') return;
    const { tab } = shown;
    void getTabState(tab.id).then((answer) => {
      if (answer.ok) setView({ kind: 'ready', tab, state: answer.value });
    });
  });

  useEffect(() => {
    let closeLive: (() => void) | undefined;
    let cancelled = false;
    void (async () => {
      const tab = await currentTab().catch(() => undefined);
      if (cancelled) return;
      if (tab === undefined) return setView({ kind: 'no-tab' });
      const answer = await getTabState(tab.id);
      if (cancelled) return;
      if (!answer.ok) return setView({ kind: 'unreachable', tab });
      setView({ kind: 'ready', tab, state: answer.value });
      setLive(liveViewOf(answer.value));
      closeLive = connectLive(
        tab.id,
        (message) => {
          setLive((current) => (current ? applyLiveMessage(current, message) : current));
          if (message.type === 'event') {
            const shown = filterRef.current;
            setLog((current) =>
              current === 'unreachable' || !matchesFilter(message.record, shown)
                ? current
                : filterRecords([message.record, ...current], shown, RECENT_LIMIT),
            );
          }
        },
        () => undefined,
      );
    })();
    return () => {
      cancelled = true;
      closeLive?.();
    };
  }, []);

  useEffect(() => {
    let cancelled = false;
    void queryAudit(filterQuery(filter, { limit: RECENT_LIMIT })).then((answer) => {
      if (cancelled) return;
      setLog(answer.ok ? filterRecords(answer.value, filter, RECENT_LIMIT) : 'unreachable');
    });
    return () => {
      cancelled = true;
    };
  }, [filter]);

  /**
   * Issue 21 §1: a site the organisation forces on whose host permission is missing
   * (a policy cannot grant it). The switch is locked, so this asks for the permission
   * alone, in the click; the background re-registers on `permissions.onAdded`.
   */
  const onGrant = useCallback(() => {
    if (view.kind !== 'ready') return;
    const { tab, state } = view;
    const permission = requestSitePermission(state.site);
    setBusy(true);
    setNotice(null);
    void permission
      .then(async (granted) => {
        if (!granted) return setNotice({ tone: 'error', key: 'popup_permission_denied' });
        setNotice({ tone: 'info', key: 'popup_reload_hint' });
        const refreshed = await getTabState(tab.id);
        if (refreshed.ok) setView({ kind: 'ready', tab, state: refreshed.value });
      })
      .finally(() => setBusy(false));
  }, [view]);

  const onToggle = useCallback(() => {
    if (view.kind !== 'ready') return;
    const { tab, state } = view;
    const next = !state.enabled;
    // Asked here, synchronously in the click: permissions.request needs the user gesture.
    const permission =
      next && !state.permitted ? requestSitePermission(state.site) : Promise.resolve(true);
    setBusy(true);
    setNotice(null);
    void permission
      .then(async (granted) => {
        if (!granted) return setNotice({ tone: 'error', key: 'popup_permission_denied' });
        const answer = await setSite(state.site, next);
        if (!answer.ok) return setNotice({ tone: 'error', key: 'background_unreachable' });
        const { enabled, permitted } = answer.value;
        setView({ kind: 'ready', tab, state: { ...state, enabled, permitted } });
        setNotice(
          next && !permitted
            ? { tone: 'error', key: 'popup_permission_denied' }
            : { tone: 'info', key: 'popup_reload_hint' },
        );
        const refreshed = await getTabState(tab.id);
        if (refreshed.ok) setView({ kind: 'ready', tab, state: refreshed.value });
      })
      .finally(() => setBusy(false));
  }, [view]);

  const { version } = browser.runtime.getManifest();
  const siteState = siteStateOf(view);
  const host =
    view.kind === 'ready'
      ? (view.tab.host ?? view.state.site)
      : view.kind === 'unreachable'
        ? view.tab.host
        : undefined;

  return (
    <main id="csg-popup" data-state={view.kind}>
      <h1 class="csg-brand">
        <img src="/assets/icon-32.png" alt="" />
        {t('extension_name')}
      </h1>
      {view.kind === 'loading' ? (
        <p class="csg-muted">{t('popup_loading')}</p>
      ) : (
        <>
          <SiteStatus host={host} state={siteState} />
          <SignedSendsNote host={host} />
          <LowConfidenceNote host={host} />
          <UnguardedSiteNote host={host} />
          {view.kind === 'ready' && view.state.site !== '' ? (
            <SiteToggle
              enabled={view.state.enabled}
              disabled={busy}
              locked={locks.site(view.state.site)}
              onToggle={onToggle}
            />
          ) : null}
          {view.kind === 'ready' &&
          locks.site(view.state.site) &&
          view.state.enabled &&
          !view.state.permitted ? (
            <button type="button" disabled={busy} data-testid="site-grant" onClick={onGrant}>
              {t('popup_grant_permission')}
            </button>
          ) : null}
        </>
      )}
      {notice ? (
        <Notice tone={notice.tone} testId="notice">
          {t(notice.key)}
        </Notice>
      ) : null}
      {live ? (
        <>
          <CountersPanel tab={live.counters.tab} today={live.counters.today} />
          {live.answers !== undefined && live.site !== '' ? (
            <AnswersPanel answers={live.answers} />
          ) : null}
          <LiveEvents events={live.events} holding={live.holding} />
        </>
      ) : null}
      {siteState === 'active' && view.kind === 'ready' ? (
        <ReferenceOnlyPanel tabId={view.tab.id} />
      ) : null}
      <RecentLog records={log} filter={filter} onFilterChange={setFilter} />
      <p class="csg-footer">
        <a
          href="../options/index.html"
          target="_blank"
          data-testid="options-link"
          onClick={(event) => {
            event.preventDefault();
            void browser.runtime.openOptionsPage();
          }}
        >
          {t('popup_open_options')}
        </a>
        <span class="csg-muted">
          {' '}
          · {t('version_prefix')} {version}
        </span>
      </p>
    </main>
  );
}
