/**
 * File names of what the UI saves: audit exports and rule packs. Names are
 * safe on every desktop file system (no `:` or `/`) and sort by time.
 */

/** `2026-11-29T21:09:22.123Z` → `20261129-210922` (UTC, so names do not depend on the zone). */
function timestamp(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

/** Keeps letters, digits, `.`, `_` and `-`; everything else becomes `-`. */
export function safeFilePart(text: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '')
    .slice(0, 64);
  return cleaned === '' ? 'unnamed' : cleaned;
}

export function auditExportFileName(format: 'json' | 'csv', date: Date): string {
  return `chat-stream-guard-audit-${timestamp(date)}.${format}`;
}

export function auditExportMime(format: 'json' | 'csv'): string {
  return format === 'json' ? 'application/json' : 'text/csv';
}

export function packFileName(name: string, version: string): string {
  return `csg-pack-${safeFilePart(name)}-${safeFilePart(version)}.json`;
}
