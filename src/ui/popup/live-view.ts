/**
 * What the popup shows of its tab while it is open: the events as they arrive
 * over the live port, the holding indicator and the counters. Pure state
 * transitions, so the order and bounds are testable without a browser.
 */
import type {
  AnswerCounts,
  AuditRecord,
  BackgroundToLive,
  TabState,
} from '../../protocol/runtime-messages.ts';

/** The popup keeps the newest events only: it is a glance, the log has the rest. */
export const LIVE_EVENT_LIMIT = 50;

export interface LiveView {
  /** Newest last. */
  events: AuditRecord[];
  holding: boolean;
  counters: { tab: number; today: number };
  /** The tab's site (answer counts of other sites, e.g. in frames, are not shown). */
  site: string;
  /** Issue 18: answers guarded on the site in this tab; undefined from an older background. */
  answers: AnswerCounts | undefined;
}

export function liveViewOf(state: TabState): LiveView {
  return {
    events: state.recent.slice(-LIVE_EVENT_LIMIT),
    holding: state.holding,
    counters: { ...state.counters },
    site: state.site,
    answers: state.answers,
  };
}

function sameRecord(a: AuditRecord, b: AuditRecord): boolean {
  return a.id !== undefined && a.id === b.id;
}

export function applyLiveMessage(view: LiveView, message: BackgroundToLive): LiveView {
  switch (message.type) {
    case 'event': {
      // The tab-state answer and the port can both carry the same stored record.
      if (view.events.some((event) => sameRecord(event, message.record))) return view;
      return { ...view, events: [...view.events, message.record].slice(-LIVE_EVENT_LIMIT) };
    }
    case 'holding':
      return { ...view, holding: message.holding };
    case 'counters':
      return { ...view, counters: { tab: message.tab, today: message.today } };
    case 'answers':
      return message.site === view.site ? { ...view, answers: message.answers } : view;
  }
}
