/**
 * The site key of a URL (docs/settings.md "Sites"): the lower-case host name of an
 * http(s) URL, without port. Anything else (extension pages, file:, about:, data:)
 * has no site and is never guarded.
 */

const HOST_NAME = /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/;

export function siteOf(url: string | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.hostname === '' ? null : parsed.hostname.toLowerCase();
}

/** True for a string usable as a site key (what `siteOf` can return). */
export function isSiteKey(value: string): boolean {
  return value.length > 0 && value.length <= 253 && HOST_NAME.test(value);
}
