/**
 * What the popup shows of its tab while it is open: the events as they arrive
 * over the live port, the holding indicator and the counters. Pure state
 * transitions, so the order and bounds are testable without a browser.
 */
import type { AuditRecord, BackgroundToLive, TabState } from '../../protocol/runtime-messages.ts';

/** The popup keeps the newest events only: it is a glance, the log has the rest. */
export const LIVE_EVENT_LIMIT = 50;

export interface LiveView {
  /** Newest last. */
  events: AuditRecord[];
  holding: boolean;
  counters: { tab: number; today: number };
}

export function liveViewOf(state: TabState): LiveView {
  return {
    events: state.recent.slice(-LIVE_EVENT_LIMIT),
    holding: state.holding,
    counters: { ...state.counters },
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
  }
}
