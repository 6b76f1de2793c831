/**
 * What happened on each tab since its last navigation: event and intervention
 * counts, whether text is held, and the most recent records. Kept in memory by
 * the background and mirrored to `storage.session` (a Chrome service worker is
 * stopped after ~30 s idle; the popup must still show the tab's counts). Reset
 * when the tab starts loading a new document.
 */
import type { AuditRecord } from '../protocol/runtime-messages.ts';

/** Actions that changed or stopped what the page got: the badge counts these. */
const INTERVENTIONS: ReadonlySet<AuditRecord['action']> = new Set(['redact', 'block', 'warn']);
export const RECENT_PER_TAB = 50;

export interface TabActivityState {
  events: number;
  interventions: number;
  holding: Set<string>;
  recent: AuditRecord[];
}

export function isIntervention(record: AuditRecord): boolean {
  return INTERVENTIONS.has(record.action);
}

/** What survives a worker restart (storage.session): everything but the holding streams. */
export type TabActivitySnapshot = Record<
  string,
  { events: number; interventions: number; recent: AuditRecord[] }
>;

export class TabActivity {
  private readonly tabs = new Map<number, TabActivityState>();

  snapshot(): TabActivitySnapshot {
    const snapshot: TabActivitySnapshot = {};
    for (const [tabId, state] of this.tabs) {
      snapshot[tabId] = {
        events: state.events,
        interventions: state.interventions,
        recent: state.recent,
      };
    }
    return snapshot;
  }

  /** Restores tabs not seen since this worker started; ignores malformed entries. */
  restore(snapshot: unknown): void {
    if (typeof snapshot !== 'object' || snapshot === null) return;
    for (const [key, value] of Object.entries(snapshot as Record<string, unknown>)) {
      const tabId = Number(key);
      const entry = value as Partial<TabActivityState> | null;
      if (!Number.isSafeInteger(tabId) || this.tabs.has(tabId) || entry === null) continue;
      if (typeof entry.events !== 'number' || typeof entry.interventions !== 'number') continue;
      const recent = Array.isArray(entry.recent) ? entry.recent.slice(-RECENT_PER_TAB) : [];
      this.tabs.set(tabId, {
        events: entry.events,
        interventions: entry.interventions,
        holding: new Set(),
        recent,
      });
    }
  }

  get(tabId: number): TabActivityState {
    let state = this.tabs.get(tabId);
    if (!state) {
      state = { events: 0, interventions: 0, holding: new Set(), recent: [] };
      this.tabs.set(tabId, state);
    }
    return state;
  }

  add(tabId: number, records: readonly AuditRecord[]): TabActivityState {
    const state = this.get(tabId);
    state.events += records.length;
    state.interventions += records.filter(isIntervention).length;
    state.recent.push(...records);
    state.recent.splice(0, Math.max(0, state.recent.length - RECENT_PER_TAB));
    return state;
  }

  /** Marks one stream of the tab as holding or not; returns whether any stream holds. */
  setHolding(tabId: number, streamId: string, holding: boolean): boolean {
    const state = this.get(tabId);
    if (holding) state.holding.add(streamId);
    else state.holding.delete(streamId);
    return state.holding.size > 0;
  }

  reset(tabId: number): void {
    this.tabs.delete(tabId);
  }
}
