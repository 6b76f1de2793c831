/**
 * Does a URL carry data? The issue-6 exfil shapes put the data in the query,
 * the fragment, the path or a sub-domain of a host the attacker reads the
 * logs of. What counts as data is judged per component, by shape, never by a
 * list of known attacks:
 * - words: two or more encoded spaces (`+`, `%20`) between words in a path
 *   segment, one in a query value or fragment (`q=my+password`);
 * - a `key=value` pair inside a path segment (`/q=…`), where web servers
 *   rarely put one but a prompt's "append the data to the URL" does;
 * - an encoded blob: an unbroken run of 16+ base64 characters with upper- and
 *   lower-case letters and digits (`c2VjcmV0…`), a base64url run of 24+ with
 *   several of each, or (query, fragment) any unbroken run of 32+;
 * - in a query: a value of 24+ characters, or a token of 8+ letters and
 *   digits mixed (`abc123xyz`), or quotes and braces (serialised data);
 *   except a search in qualifier syntax (`q=is:pr+is:merged+label:"bug"`,
 *   `search-query.ts`): a person's search on a code host or mail client,
 *   which READMEs link to, with no digit and only plain words besides;
 * - in a sub-domain: an unhyphenated label part of 32+ characters, or of 20+
 *   mixing letters and digits (DNS is case-insensitive: hex or base32).
 * Hyphenated slugs, file names, API names (`CanvasRenderingContext2D`) and
 * single-case ids (commit hashes, UUIDs, extension ids) in a path are not data:
 * documentation links are full of them.
 */
import { isSearchQuery } from './search-query.ts';

function percentDecoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s.replace(/\+/g, ' ');
  }
}

/** Whitespace between two non-space characters: `a b`, `a+b`. */
function wordGaps(decoded: string): number {
  return (decoded.match(/\S\s+(?=\S)/g) ?? []).length;
}

/**
 * A run of capitalised words with a few digits, as API and file names are
 * (`CanvasRenderingContext2D`, `Uint8ClampedArray`, `copyTexSubImage3D`):
 * every part with lower-case letters is a word of three or more, `3D` is one
 * part, and the parts are long (at most one per three characters). Base64
 * switches case and digits every one or two characters (`c2VjcmV0VG9rZW4x`),
 * so it leaves short parts: of 650,000 random base64 runs of 16 to 48
 * characters, 0.13% read as names (a simulation when this was written).
 */
function identifierLike(run: string): boolean {
  if (/[+/=]/.test(run)) return false;
  const parts = run.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+[A-Z]?(?![a-z])/g) ?? [];
  return (
    parts.length * 3 <= run.length &&
    parts.every((p) => !/[a-z]/.test(p) || p.length >= 3) &&
    parts.filter((p) => /^[0-9]/.test(p)).length <= 2
  );
}

/**
 * `longRunsAreData`: in a query or fragment any unbroken run of 32+ is data;
 * in a path such runs are ids (commit hashes, extension ids) unless mixed, and
 * mixed runs that read as capitalised words (`identifierLike`) are names.
 */
function encodedBlob(raw: string, longRunsAreData: boolean): boolean {
  for (const run of raw.match(/[A-Za-z0-9+/=]{16,}/g) ?? []) {
    const mixed = /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run);
    if (mixed && (longRunsAreData || !identifierLike(run))) return true;
    if (run.length >= 32 && longRunsAreData) return true;
  }
  for (const run of raw.match(/[A-Za-z0-9_-]{24,}/g) ?? []) {
    const count = (re: RegExp): number => (run.match(re) ?? []).length;
    if (count(/[A-Z]/g) >= 3 && count(/[a-z]/g) >= 3 && count(/[0-9]/g) >= 3) return true;
  }
  return false;
}

/**
 * A value that is itself an absolute http(s) URL (`?url=https%3A%2F%2F…`, as
 * badge services and share buttons take) is judged as a URL by its own shape
 * rather than by its length, one level deep; any encoded space in it is still
 * data, as in any query value.
 */
function nestedUrlCarriesData(decoded: string, depth: number): boolean | undefined {
  const m = /^https?:\/\/([^/?#\s]{1,253})([^\s]*)$/i.exec(decoded);
  if (m === null || depth > 0) return undefined;
  const host = (m[1] ?? '').toLowerCase();
  return wordGaps(decoded) >= 1 || carriesData(`//${host}${m[2] ?? ''}`, host, depth + 1);
}

function queryCarriesData(query: string, depth: number): boolean {
  if (query === '') return false;
  for (const pair of query.split(/[&;]/)) {
    const eq = pair.indexOf('=');
    const value = eq < 0 ? pair : pair.slice(eq + 1);
    const decoded = percentDecoded(value);
    const nested = nestedUrlCarriesData(decoded, depth);
    if (nested !== undefined) {
      if (nested) return true;
      continue;
    }
    if (isSearchQuery(decoded)) continue;
    if (value.length >= 24 || wordGaps(decoded) >= 1 || /['"<>{}|\\^`]/.test(decoded)) return true;
    if (encodedBlob(value, true)) return true;
    if (/[A-Za-z0-9]{8,}/.test(value) && /[A-Za-z]/.test(value) && /[0-9]/.test(value)) {
      const token = value.match(/[A-Za-z0-9]{8,}/g) ?? [];
      if (token.some((t) => /[A-Za-z]/.test(t) && /[0-9]/.test(t))) return true;
    }
  }
  return false;
}

function pathCarriesData(path: string): boolean {
  return path
    .split(/[/\\]/)
    .some(
      (segment) =>
        segment.includes('=') ||
        wordGaps(percentDecoded(segment)) >= 2 ||
        encodedBlob(segment, false),
    );
}

function fragmentCarriesData(fragment: string): boolean {
  return wordGaps(percentDecoded(fragment)) >= 1 || encodedBlob(fragment, true);
}

function hostCarriesData(host: string): boolean {
  // The registrable part (last two labels) is the attacker's own name, not data.
  return host
    .split('.')
    .slice(0, -2)
    .flatMap((label) => label.split('-'))
    .some((p) => p.length >= 32 || (p.length >= 20 && /[0-9]/.test(p) && /[a-z]/i.test(p)));
}

/**
 * `afterScheme` is what follows `scheme:` (slashes included) of an absolute
 * or protocol-relative URL; `host` the normalised host.
 */
export function urlCarriesData(afterScheme: string, host: string): boolean {
  return carriesData(afterScheme, host, 0);
}

function carriesData(afterScheme: string, host: string, depth: number): boolean {
  const rest = afterScheme.replace(/^[/\\]+/, '');
  const authorityEnd = rest.search(/[/\\?#]/);
  const tail = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const hash = tail.indexOf('#');
  const beforeHash = hash < 0 ? tail : tail.slice(0, hash);
  const fragment = hash < 0 ? '' : tail.slice(hash + 1);
  const q = beforeHash.indexOf('?');
  const path = q < 0 ? beforeHash : beforeHash.slice(0, q);
  const query = q < 0 ? '' : beforeHash.slice(q + 1);
  return (
    hostCarriesData(host) ||
    pathCarriesData(path) ||
    queryCarriesData(query, depth) ||
    fragmentCarriesData(fragment)
  );
}
