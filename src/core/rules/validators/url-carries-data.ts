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
 *
 * Ordinary links whose query holds only short settings are not data either
 * (issue 17 §4): slugs of words (`utm_source=npm-json-schema-traverse`,
 * `X509_STORE_CTX_get_error`, `JSON-Patch-Operation-1535540952263`), a user
 * name with a number at its end (`author=foray1010`), a value that is a
 * host and path without data (`uri=github.com/owner/repo`), and a search of a
 * few plain words in a search parameter (`q`, `query`, `search`, …) of a page
 * that is not a file (`/search?q=react+hooks`, `?q=what%20is%20jq%3F`): a
 * file (`logo.png?q=…`) takes no search, so words there stay data, and so do
 * digits, long phrases and other parameter names. A text fragment directive
 * (`#:~:text=…`) is neither sent to the server nor readable by the page, so it
 * is not judged. A sub-domain label of letters that reads as words
 * (`cloudcommerceconsumerprocurement`) is a name, not an encoding.
 */
import { readsAsWord } from './not-placeholder.ts';
import { isSearchQuery } from './search-query.ts';

function percentDecoded(s: string): string {
  // Most segments and values have nothing to decode (the common case of a hot path).
  if (!s.includes('%') && !s.includes('+')) return s;
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
 * Words and numbers joined by `-`, `_` or `.` (`npm-json-schema-traverse`,
 * `X509_STORE_CTX_get_error`, `JSON-Patch-Replace-Operation-1535540952263`):
 * a name. Every part is a word (`readsAsWord`), a word with up to four digits
 * at its end (`X509`, `utf8`) or a number; random base64url leaves parts that
 * mix case and digits and do not read as words. `ids`: in a path, a part may
 * also be a single-case hex id (`Page-Title-1bc826ecc0994dd8915be97fc3489cde`,
 * a wiki page's slug), as a path's ids are elsewhere.
 */
function slugOfWords(run: string, ids = false): boolean {
  const parts = run.split(/[-_.]+/).filter((p) => p !== '');
  return (
    parts.length >= 2 &&
    parts.every((p) => {
      if (/^[0-9]+$/.test(p)) return true;
      if (ids && /^(?:[0-9a-f]{8,}|[0-9A-F]{8,})$/.test(p)) return true;
      const m = /^([A-Za-z]+)[0-9]{0,4}$/.exec(p);
      return m !== null && readsAsWord(m[1] ?? '');
    })
  );
}

/**
 * Segments joined by `/` that are each a word, a slug, a name
 * (`MaintenanceWindow`, `CFBundleIdentifier`) or a number
 * (`#/en/database/20160918/datatypes/…`, a page route in a fragment;
 * `?repo=owner/chrome-extension-tools`): a route, not base64 (whose slashes
 * fall between random runs).
 */
function routeOfNames(run: string): boolean {
  const segments = run.split('/').filter((seg) => seg !== '');
  return (
    segments.length >= 2 &&
    !run.includes('+') &&
    !run.includes('=') &&
    segments.every(
      (seg) =>
        /^[0-9]+$/.test(seg) ||
        /^[a-z]{1,5}$/.test(seg) ||
        readsAsWord(seg) ||
        slugOfWords(seg) ||
        (/^[A-Z]/.test(seg) && identifierLike(seg)),
    )
  );
}

const encoder = new TextEncoder();

function utf8Length(s: string): number {
  return encoder.encode(s).length;
}

/** Parameter names that hold a search. */
const SEARCH_NAME = /^(?:q|query|search|search_query|s|k|keywords?|terms?|text|find)$/i;

/** A path whose last segment names a file (`logo.png`, `l.gif`, `a.js`): files take no searches. */
const FILE_PATH = /\.[A-Za-z0-9]{1,5}$/;

/**
 * A search of a few plain words: two to eight words of two or more letters
 * (with the punctuation of a search: `c++`, `what is jq?`, `"a phrase"`), no
 * digit, at most 80 characters.
 */
function searchPhrase(decoded: string): boolean {
  if (decoded.length > 80 || /[0-9]/.test(decoded)) return false;
  const words = decoded.trim().split(/\s+/);
  return (
    words.length >= 2 &&
    words.length <= 8 &&
    words.every(
      (w) =>
        /^["'(#]?[\p{L}][\p{L}'+#.:-]*[)"'?!.,:]?$/u.test(w) && /\p{L}.*\p{L}|\p{L}\+/u.test(w),
    )
  );
}

/** A lower-case user name with a number at its end (`foray1010`, `besser82`). */
const USER_NAME = /^[a-z]{4,}[0-9]{1,4}$/;

/** Parameters that name a person or an account (`?author=Dennis273`). */
const USER_PARAM =
  /^(?:author|user|username|owner|login|by|assignee|reviewer|creator|committer|member|account|handle)$/i;

/**
 * A user name as people pick them (`Dennis273`, `iAziz786`, `0xflotus`,
 * `octo-cat`): letters with one number of up to four digits at the start or
 * the end, where a random token scatters its digits (`Tq8mZ2xLk9vR`).
 */
function userName(value: string): boolean {
  return value.length <= 39 && /^[0-9]{0,4}[A-Za-z][A-Za-z-]*[0-9]{0,4}$/.test(value);
}

/**
 * `longRunsAreData`: in a query or fragment any unbroken run of 32+ is data;
 * in a path such runs are ids (commit hashes, extension ids) unless mixed, and
 * mixed runs that read as capitalised words (`identifierLike`) are names.
 */
function encodedBlob(raw: string, longRunsAreData: boolean): boolean {
  for (const run of raw.match(/[A-Za-z0-9+/=]{16,}/g) ?? []) {
    if (routeOfNames(run)) continue;
    const mixed = /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run);
    if (mixed && (longRunsAreData || !identifierLike(run))) return true;
    if (run.length >= 32 && longRunsAreData) return true;
  }
  for (const run of raw.match(/[A-Za-z0-9_-]{24,}/g) ?? []) {
    if (slugOfWords(run, !longRunsAreData)) continue;
    const count = (re: RegExp): number => (run.match(re) ?? []).length;
    if (count(/[A-Z]/g) >= 3 && count(/[a-z]/g) >= 3 && count(/[0-9]/g) >= 3) return true;
  }
  return false;
}

/**
 * A value that is itself an absolute http(s) URL (`?url=https%3A%2F%2F…`, as
 * badge services and share buttons take), or a host with a path
 * (`?uri=github.com/owner/repo`), is judged as a URL by its own shape rather
 * than by its length, one level deep; any encoded space in it is still data,
 * as in any query value.
 */
function nestedUrlCarriesData(decoded: string, depth: number): boolean | undefined {
  const m =
    /^https?:\/\/([^/?#\s]{1,253})([^\s]*)$/i.exec(decoded) ??
    /^((?:[a-z0-9-]{1,63}\.)+[a-z]{2,24})(\/[^\s]*)?$/i.exec(decoded);
  if (m === null || depth > 0) return undefined;
  const host = (m[1] ?? '').toLowerCase();
  return wordGaps(decoded) >= 1 || carriesData(`//${host}${m[2] ?? ''}`, host, depth + 1);
}

/** `searches`: a search parameter may hold a few plain words (the URL is a page, not a file). */
function queryCarriesData(query: string, searches: boolean, depth: number): boolean {
  if (query === '') return false;
  for (const pair of query.split(/[&;]/)) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? '' : pair.slice(0, eq);
    const value = eq < 0 ? pair : pair.slice(eq + 1);
    const decoded = percentDecoded(value);
    const nested = nestedUrlCarriesData(decoded, depth);
    if (nested !== undefined) {
      if (nested) return true;
      continue;
    }
    if (isSearchQuery(decoded)) continue;
    if (searches && depth === 0 && SEARCH_NAME.test(name) && searchPhrase(decoded)) continue;
    if ((slugOfWords(decoded) || routeOfNames(decoded)) && decoded.length <= 64) continue;
    // Length in bytes once decoded (`%2F` is one byte, a CJK character three):
    // escapes do not make a short value long, and a sentence without spaces stays long.
    if (utf8Length(decoded) >= 24 || wordGaps(decoded) >= 1 || /['"<>{}|\\^`]/.test(decoded)) {
      return true;
    }
    if (encodedBlob(value, true)) return true;
    if (USER_PARAM.test(name) && userName(decoded)) continue;
    // Letters and digits mixed in one run (`abc123xyz`), judged on the decoded
    // value so that an escape (`%23TypeScript`) does not count as digits.
    const tokens = decoded.match(/[A-Za-z0-9]{8,}/g) ?? [];
    if (tokens.some((t) => /[A-Za-z]/.test(t) && /[0-9]/.test(t) && !USER_NAME.test(t))) {
      return true;
    }
  }
  return false;
}

/**
 * A `key=value` pair in a path: at the start of a segment (`/q=…`, the idiom of
 * "append the data to the URL") it is data; after `&` or `;` inside a segment
 * (a query run into the path, `repo&page=editor&tutorial=intro`) its values
 * are judged as a query's (without the search allowance).
 */
function pathPairsCarryData(segment: string, depth: number): boolean {
  if (/^[A-Za-z_][\w.-]*=/.test(segment)) return true;
  const joint = segment.search(/[&;][A-Za-z_][\w.-]*=/);
  if (joint < 0) return segment.includes('=') && !/%[0-9A-Fa-f]{2}=/.test(segment);
  return queryCarriesData(segment.slice(joint + 1), false, depth);
}

function pathCarriesData(path: string, depth: number): boolean {
  return path.split(/[/\\]/).some((segment) => {
    const decoded = percentDecoded(segment);
    return (
      pathPairsCarryData(segment, depth) || wordGaps(decoded) >= 2 || encodedBlob(segment, false)
    );
  });
}

function fragmentCarriesData(fragment: string): boolean {
  // A text fragment directive (`#:~:text=…`, `#anchor:~:text=…`) is stripped by
  // the browser before the page can read the fragment, and never sent: not a channel.
  const directive = fragment.indexOf(':~:');
  const readable = directive < 0 ? fragment : fragment.slice(0, directive);
  return wordGaps(percentDecoded(readable)) >= 1 || encodedBlob(readable, true);
}

function hostCarriesData(host: string): boolean {
  // The registrable part (last two labels) is the attacker's own name, not data.
  const labels = host.split('.');
  for (let i = 0; i < labels.length - 2; i++) {
    const label = labels[i] as string;
    // A part shorter than 20 is never data: most hosts end here without a split.
    if (label.length < 20) continue;
    for (const p of label.split('-')) {
      if (p.length >= 32 && !readsAsWord(p)) return true;
      if (p.length >= 20 && /[0-9]/.test(p) && /[a-z]/i.test(p)) return true;
    }
  }
  return false;
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
    pathCarriesData(path, depth) ||
    queryCarriesData(query, !FILE_PATH.test(path), depth) ||
    fragmentCarriesData(fragment)
  );
}
