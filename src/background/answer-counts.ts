/**
 * Issue 18: how many answers were guarded on each site of each tab, by how they
 * were guarded: by a specific adapter (per format), by the generic structural
 * adapter, or not at all because they could not be decoded. The audit log has
 * records only when something matched or failed, so the guard host tells the
 * background at the end of every answer (`answer-guarded`) and the counts live
 * here: in memory, mirrored to `storage.session` with the tab counters, never
 * in the audit log and never with any text.
 *
 * Counts are kept per tab and site, and survive reloads and navigations in the
 * tab (the popup shows the tab's site's), until the tab is closed.
 */
import { GENERIC_FORMAT, type AnswerCounts } from '../protocol/runtime-messages.ts';
import { isFormatId } from './message-shape.ts';
import { isSiteKey } from './site-key.ts';

/** Sites kept per tab (the oldest is dropped beyond) and formats per site (more are ignored). */
export const ANSWER_COUNT_LIMITS = { sitesPerTab: 32, formatsPerSite: 32 } as const;

export type AnswerCountsSnapshot = Record<string, Record<string, AnswerCounts>>;

export function emptyAnswerCounts(): AnswerCounts {
  return { adapters: {}, generic: 0, undecodable: 0 };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A well-formed copy of a stored entry, or undefined. */
function restoredCounts(value: unknown): AnswerCounts | undefined {
  const entry = value as Partial<AnswerCounts> | null;
  if (typeof entry !== 'object' || entry === null) return undefined;
  if (!isCount(entry.generic) || !isCount(entry.undecodable)) return undefined;
  if (typeof entry.adapters !== 'object' || entry.adapters === null) return undefined;
  const adapters: Record<string, number> = {};
  for (const [format, count] of Object.entries(entry.adapters).slice(
    0,
    ANSWER_COUNT_LIMITS.formatsPerSite,
  )) {
    if (isFormatId(format) && format !== GENERIC_FORMAT && isCount(count)) {
      adapters[format] = count;
    }
  }
  return { adapters, generic: entry.generic, undecodable: entry.undecodable };
}

/** The answers counted in `counts`, however they were guarded. */
export function totalAnswers(counts: AnswerCounts): number {
  const specific = Object.values(counts.adapters).reduce((sum, n) => sum + n, 0);
  return specific + counts.generic + counts.undecodable;
}

export class AnswerTally {
  /** Tab → site → counts; a Map keeps insertion order, so the oldest site is first. */
  private readonly tabs = new Map<number, Map<string, AnswerCounts>>();

  /** One answer of `site` in `tab`; returns the site's counts after it. */
  add(tabId: number, site: string, format: string, decoded: boolean): AnswerCounts {
    let sites = this.tabs.get(tabId);
    if (sites === undefined) {
      sites = new Map();
      this.tabs.set(tabId, sites);
    }
    let counts = sites.get(site);
    if (counts === undefined) {
      counts = emptyAnswerCounts();
      sites.set(site, counts);
      for (const oldest of sites.keys()) {
        if (sites.size <= ANSWER_COUNT_LIMITS.sitesPerTab) break;
        sites.delete(oldest);
      }
    }
    if (!decoded) counts.undecodable += 1;
    else if (format === GENERIC_FORMAT) counts.generic += 1;
    else if (
      format in counts.adapters ||
      Object.keys(counts.adapters).length < ANSWER_COUNT_LIMITS.formatsPerSite
    ) {
      counts.adapters[format] = (counts.adapters[format] ?? 0) + 1;
    }
    return structuredClone(counts);
  }

  /** The counts of `site` in `tab` (a copy; zeros when none). */
  get(tabId: number, site: string): AnswerCounts {
    const counts = this.tabs.get(tabId)?.get(site);
    return counts === undefined ? emptyAnswerCounts() : structuredClone(counts);
  }

  /** The tab was closed. */
  reset(tabId: number): void {
    this.tabs.delete(tabId);
  }

  snapshot(): AnswerCountsSnapshot {
    const snapshot: AnswerCountsSnapshot = {};
    for (const [tabId, sites] of this.tabs) snapshot[tabId] = Object.fromEntries(sites);
    return structuredClone(snapshot);
  }

  /** Restores tabs not seen since this worker started; ignores malformed entries. */
  restore(snapshot: unknown): void {
    if (typeof snapshot !== 'object' || snapshot === null) return;
    for (const [key, value] of Object.entries(snapshot as Record<string, unknown>)) {
      const tabId = Number(key);
      if (!Number.isSafeInteger(tabId) || tabId < 0 || this.tabs.has(tabId)) continue;
      if (typeof value !== 'object' || value === null) continue;
      const sites = new Map<string, AnswerCounts>();
      for (const [site, entry] of Object.entries(value as Record<string, unknown>).slice(
        -ANSWER_COUNT_LIMITS.sitesPerTab,
      )) {
        const counts = restoredCounts(entry);
        if (counts !== undefined && isSiteKey(site)) sites.set(site, counts);
      }
      if (sites.size > 0) this.tabs.set(tabId, sites);
    }
  }
}
