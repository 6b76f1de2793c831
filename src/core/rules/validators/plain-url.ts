/**
 * Plain URLs: the ones no exfil verdict can find risky, told apart in one pass
 * over their units (issue 19 §3: judging each URL cost ~3.5 µs, a sixth of the
 * bulk engine's time on a workload where every URL is a documentation link).
 *
 * A URL is plain when it is `http://` or `https://` (lower case), a host of
 * lower-case ASCII labels (`[a-z0-9-]`, each shorter than 20, joined by single
 * dots, at most 100 units, no port or user info), then nothing or a path of
 * `[A-Za-z0-9._~/-]` in which every segment with an upper-case letter is
 * shorter than 16 units, then nothing or a fragment `#` of fewer than 16
 * units of `[a-z0-9._-]` (`#install`). No query, escape, `+`, `=`, `&`, `;`,
 * `:`, backslash or space.
 *
 * Why such a URL is never risky, for links and images alike (exfil-link.ts
 * `judgeUrl`, url-carries-data.ts): the scheme is http(s), so it is absolute
 * and not active; with no `?` there is no image query to judge; an allowed
 * host is not risky, and otherwise `urlCarriesData` finds nothing:
 * - `hostCarriesData` reads only labels of 20 or more;
 * - a path segment without `=` has no `key=value` pair, and without `%`, `+`
 *   or whitespace no word gaps;
 * - `encodedBlob` in a path needs a run of 16+ mixing upper case, lower case
 *   and digits, or a run of 24+ with three upper-case letters: a segment
 *   without upper case, or shorter than 16, has neither;
 * - no query; a fragment of lower-case letters, digits and `._-` shorter than
 *   16 has no word gaps and no run of 16+ (`fragmentCarriesData`), and an
 *   image's fragment is not judged at all.
 * Its host is then what `exfilUrlVerdictOf` names (already lower case, no
 * trailing dot, only characters `displayHost` keeps) and a renderer links it
 * (`LINKABLE_HOST`). test/property/plain-url.test.ts compares the verdicts
 * with and without this shortcut.
 */

/** Off only in tests, to compare against the full verdict. */
export const plainUrlShortcut = { enabled: true };

const SLASH = 0x2f;
const HASH = 0x23;
const DOT = 0x2e;
const HYPHEN = 0x2d;
/** A host label this long may be data (url-carries-data.ts `hostCarriesData`). */
const LABEL_LIMIT = 20;
/** A segment this long with upper case may hold an encoded blob (`encodedBlob`). */
const MIXED_SEGMENT_LIMIT = 16;
/** A fragment this long may hold a run that is data (`encodedBlob`, long runs). */
const FRAGMENT_LIMIT = 16;
/** `displayHost` shortens longer hosts. */
const HOST_LIMIT = 100;

function isLowerOrDigit(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
}

function isUpper(c: number): boolean {
  return c >= 0x41 && c <= 0x5a;
}

/** `_`, `~`, `.`, `-`: path units that are neither letters nor digits nor separators. */
function isPathMark(c: number): boolean {
  return c === 0x5f || c === 0x7e || c === DOT || c === HYPHEN;
}

/** Where the host begins (after `http://` or `https://`), or -1. */
function hostStart(url: string): number {
  if (!url.startsWith('http')) return -1;
  const from = url.charCodeAt(4) === 0x73 ? 5 : 4;
  return url.startsWith('://', from) ? from + 3 : -1;
}

/** End of a host of short lower-case labels starting at `from`, or -1. */
function hostEnd(url: string, from: number): number {
  let label = 0;
  let i = from;
  for (; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === SLASH || c === HASH) break;
    if (c === DOT) {
      if (label === 0) return -1;
      label = 0;
    } else if (isLowerOrDigit(c) || c === HYPHEN) {
      if (++label >= LABEL_LIMIT) return -1;
    } else {
      return -1;
    }
  }
  if (label === 0 || i - from > HOST_LIMIT) return -1;
  return i;
}

/** A fragment from `from` (just after its `#`) that is a short lower-case name. */
function plainFragment(url: string, from: number): boolean {
  if (url.length - from >= FRAGMENT_LIMIT) return false;
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (!isLowerOrDigit(c) && c !== DOT && c !== HYPHEN && c !== 0x5f) return false;
  }
  return true;
}

/**
 * The path from `from` (a `/`, a `#` or the end) holds only short or
 * single-case segments, and its fragment if any is plain.
 */
function plainPath(url: string, from: number): boolean {
  let length = 0;
  let upper = false;
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === HASH) return plainFragment(url, i + 1);
    if (c === SLASH) {
      length = 0;
      upper = false;
      continue;
    }
    if (isUpper(c)) upper = true;
    else if (!isLowerOrDigit(c) && !isPathMark(c)) return false;
    length++;
    if (upper && length >= MIXED_SEGMENT_LIMIT) return false;
  }
  return true;
}

/** The host of a plain URL (see above), or null when the URL needs the full verdict. */
export function plainUrlHost(url: string): string | null {
  if (!plainUrlShortcut.enabled) return null;
  const from = hostStart(url);
  if (from < 0) return null;
  const end = hostEnd(url, from);
  if (end < 0 || !plainPath(url, end)) return null;
  return url.slice(from, end);
}
