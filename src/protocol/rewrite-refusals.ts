/**
 * Issue 20 §1: the sites that refused a request the guard rewrote, remembered per
 * site in `storage.local` under REWRITE_REFUSALS_KEY, so their sends are asked
 * about (send as typed, edit, cancel) instead of rewritten from then on. Written
 * by the page's bridge (content/rewrite-refusal-memory.ts), shown and reset by the
 * popup (ui/popup/rewrite-refused-note.tsx). Holds no content: the site key, the
 * request format, the HTTP status and the time.
 *
 * Storage is read as untrusted: anything malformed is left out.
 */

export const REWRITE_REFUSALS_KEY = 'rewriteRefusals';

export interface RewriteRefusalRecord {
  /** The request format (request adapter name) that was refused. */
  format: string;
  /** The HTTP status of the refusal. */
  status: number;
  /** When (ms since the epoch). */
  at: number;
}

/** Site key (background/site-key.ts: lower-case host, no port) → its refusal. */
export type RewriteRefusals = Record<string, RewriteRefusalRecord>;

/** The most sites kept: the oldest refusal is forgotten first. */
export const MAX_REWRITE_REFUSALS = 200;

const SITE = /^[a-z0-9.-]{1,253}$|^\[[0-9a-f:.]{2,45}\]$/;
const FORMAT = /^[a-z0-9-]{1,64}$/;

function recordOf(value: unknown): RewriteRefusalRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { format, status, at } = value as Record<string, unknown>;
  if (typeof format !== 'string' || !FORMAT.test(format)) return undefined;
  if (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 499) {
    return undefined;
  }
  if (typeof at !== 'number' || !Number.isFinite(at) || at < 0) return undefined;
  return { format, status: status as number, at };
}

/** The stored map, validated; `{}` for anything that is not one. */
export function parseRewriteRefusals(value: unknown): RewriteRefusals {
  const out = Object.create(null) as RewriteRefusals;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [site, entry] of Object.entries(value as Record<string, unknown>)) {
    const record = recordOf(entry);
    if (SITE.test(site) && record !== undefined) out[site] = record;
  }
  return out;
}

/** `map` with `site`'s refusal set (the oldest dropped beyond MAX_REWRITE_REFUSALS). */
export function withRewriteRefusal(
  map: RewriteRefusals,
  site: string,
  record: RewriteRefusalRecord,
): RewriteRefusals {
  const entries = Object.entries(map).filter(([key]) => key !== site);
  entries.push([site, record]);
  entries.sort((a, b) => a[1].at - b[1].at);
  return Object.fromEntries(entries.slice(-MAX_REWRITE_REFUSALS));
}

/** `map` without `site` (the popup's reset). */
export function withoutRewriteRefusal(map: RewriteRefusals, site: string): RewriteRefusals {
  return Object.fromEntries(Object.entries(map).filter(([key]) => key !== site));
}
