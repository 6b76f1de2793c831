/**
 * The `exfil-link` and `exfil-image` validators: is a link or an image an
 * exfiltration channel (issue 6, exfil pack)?
 *
 * Candidates: inline links and images `[text](dest "title")`, `![alt](dest)`,
 * link reference definitions `[label]: dest "title"` (they serve
 * reference-style links and images alike, wherever in the message they stand:
 * the EchoLeak shape), autolinks `<https://…>`, bare URLs (which chat
 * renderers autolink) and bare destinations (an HTML `src`).
 *
 * Both are risky when the candidate
 * - goes to a host that is not on the allow-list and carries data in its
 *   query, fragment, path or sub-domain (`url-carries-data.ts`), or
 * - uses a scheme that runs or embeds content (`javascript:`, `vbscript:`,
 *   `data:`), or
 * - is cut off where its destination cannot be told (fail closed).
 * Links: a `mailto:` with a query (`?body=…` sends data on click) is risky;
 * relative links go to the chat site itself and are left alone.
 * Images: any scheme other than http(s) is risky, and so is any query that is
 * more than a few short settings (on an allow-listed host too): a fetch
 * without a click, so even `?d=abc123` is a channel, while a badge's
 * `?style=flat&logo=github` is not (`exfil-image-config-query.ts`). An http(s)
 * image's fragment is not sent and runs nothing, so it is not judged.
 * On a host not on the allow-list, data in the path or a sub-domain is judged
 * by shape. Relative images keep the strict `exfil-url` verdict (any query).
 *
 * An image from an unknown host whose URL has no query, no fragment and
 * nothing data-shaped is left alone: it tells that host only that the message
 * was shown (as any web page does), and neutralising every such image breaks
 * ordinary answers (diagrams, screenshots).
 * The strict `exfil-url` validator, which neutralises every image from a host
 * not on the allow-list, stays available to custom packs.
 */
import { authorityHost, destinationUrl, exfilUrlVerdictOf, hostIsAllowed } from './exfil-url.ts';
import { imageQueryIsConfiguration } from './exfil-image-config-query.ts';
import { urlCarriesData } from './url-carries-data.ts';
import { plainUrlHost } from './plain-url.ts';

export interface ExfilLinkVerdict {
  risky: boolean;
  host: string;
}

const DEFINITION = /^[ \t]{0,3}\[(?:[^\]\\]|\\[\s\S])*\]:[ \t]*(?:\r?\n[ \t]*)?/;
const ACTIVE_SCHEMES: ReadonlySet<string> = new Set(['javascript', 'vbscript', 'data']);

/** The longest destination the link-definition rule reads; one that long may have been cut. */
const DEFINITION_BOUND = 2048;

/**
 * A host a renderer links: labels of letters, digits, `_` and `-` joined by
 * dots, or an IP literal in brackets. GFM's autolinks and linkify-it both need
 * one, so a bare `http://(` in prose is text, not a link.
 */
const LINKABLE_HOST = /^(?:\[[0-9a-f:.]+\]|(?:[\p{L}\p{M}\p{N}_-]+\.)*[\p{L}\p{M}\p{N}_-]+)$/u;

/** The host of a bare `scheme://…` URL as the URL parser reads it (not shortened for display). */
function bareHost(url: string): string {
  return authorityHost(url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:[/\\]*/, ''));
}

/** The candidate is a bare URL (autolinked by chat renderers), not `[…](…)`, `<…>` or a definition. */
function bareUrl(text: string): boolean {
  return /^[A-Za-z]/.test(text);
}

export function exfilLinkVerdict(
  text: string,
  allowedHosts: readonly string[],
  target: 'link' | 'image' = 'link',
): ExfilLinkVerdict {
  const definition = DEFINITION.exec(text);
  const destination = definition === null ? text : text.slice(definition[0].length);
  const { url, incomplete } = destinationUrl(destination);
  const judged = urlVerdict(url, incomplete, allowedHosts, target);
  const host = judged.host;
  // A definition whose destination no renderer accepts (unbalanced parentheses,
  // `[a]: :forEach((x)` in a code sample) is not a definition but text, unless
  // the destination reached the rule's bound: then it may have been cut (fail closed).
  if (incomplete && definition !== null && destination.trimStart().length < DEFINITION_BOUND) {
    return { risky: false, host };
  }
  if (bareUrl(text) && !linkableHost(judged, url)) return { risky: false, host };
  return { risky: judged.risky, host };
}

/**
 * The verdict on a destination URL: a function of the URL, whether it was cut
 * off, the allow-list and the target alone, not of the Markdown around it. One
 * URL is judged by several rules (an inline link `[t](https://…)` is also read
 * by the bare-URL rule, issue 19 §3: the same URL was parsed twice, a fifth of
 * the bulk time), so the verdicts of the latest URLs are kept per allow-list.
 */
interface UrlVerdict {
  risky: boolean;
  host: string;
  /** `LINKABLE_HOST` of the URL's bare host, read when a bare URL first needs it. */
  linkable?: boolean;
}

/** Per allow-list (one per compiled pack) and target: the latest URLs' verdicts. */
const urlVerdicts = new WeakMap<readonly string[], Map<string, UrlVerdict>[]>();
/** Bounded: cleared when full (a stream reads a URL's rules within a few hundred units). */
const URL_MEMO_LIMIT = 256;
/** Longer URLs are judged every time: the memo's memory stays small. */
const URL_MEMO_MAX_LENGTH = 512;

function urlVerdict(
  url: string,
  incomplete: boolean,
  allowedHosts: readonly string[],
  target: 'link' | 'image',
): UrlVerdict {
  // Most URLs in answers are plain links (plain-url.ts): not risky for any target
  // or allow-list, linkable, and told apart more cheaply than a memo lookup.
  if (!incomplete) {
    const host = plainUrlHost(url);
    if (host !== null) return { risky: false, host, linkable: true };
  }
  if (url.length > URL_MEMO_MAX_LENGTH) return judgeUrl(url, incomplete, allowedHosts, target);
  let memos = urlVerdicts.get(allowedHosts);
  if (memos === undefined) {
    memos = [new Map(), new Map(), new Map(), new Map()];
    urlVerdicts.set(allowedHosts, memos);
  }
  const memo = memos[(target === 'image' ? 2 : 0) + (incomplete ? 1 : 0)] as Map<
    string,
    UrlVerdict
  >;
  let verdict = memo.get(url);
  if (verdict === undefined) {
    verdict = judgeUrl(url, incomplete, allowedHosts, target);
    if (memo.size >= URL_MEMO_LIMIT) memo.clear();
    memo.set(url, verdict);
  }
  return verdict;
}

function linkableHost(verdict: UrlVerdict, url: string): boolean {
  verdict.linkable ??= LINKABLE_HOST.test(bareHost(url));
  return verdict.linkable;
}

/** `urlVerdict` without the memo (test/property/url-verdict-memo.test.ts compares the two). */
function judgeUrl(
  url: string,
  incomplete: boolean,
  allowedHosts: readonly string[],
  target: 'link' | 'image',
): UrlVerdict {
  const image = exfilUrlVerdictOf(url, incomplete, allowedHosts);
  const host = image.host;
  if (incomplete) return { risky: true, host };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  const name = scheme?.[1]?.toLowerCase();
  if (name !== undefined && ACTIVE_SCHEMES.has(name)) return { risky: true, host };
  const afterScheme = scheme === null ? url : url.slice(scheme[0].length);
  const absolute = /^[/\\]{2}/.test(afterScheme) || name === 'http' || name === 'https';
  if (target === 'image') {
    if (!absolute) return { risky: image.risky, host };
    if (name !== undefined && name !== 'http' && name !== 'https')
      return { risky: image.risky, host };
    // A query holding more than a few short settings is a data channel however
    // short its value (`?d=abc123`); badge settings are not
    // (`exfil-image-config-query.ts`), on any host. A fragment is never sent
    // with the request and an image runs no script (`#gh-dark-mode-only`): the
    // image is judged without it.
    const hash = afterScheme.indexOf('#');
    const requested = hash < 0 ? afterScheme : afterScheme.slice(0, hash);
    const q = requested.indexOf('?');
    if (q >= 0 && !imageQueryIsConfiguration(requested.slice(q + 1))) {
      return { risky: true, host };
    }
    if (hostIsAllowed(host, allowedHosts)) return { risky: false, host };
    // The query was judged above, by the stricter rules for images; the rest by shape.
    return { risky: urlCarriesData(q < 0 ? requested : requested.slice(0, q), host), host };
  } else {
    if (name === 'mailto') return { risky: url.includes('?'), host };
    if (!absolute || hostIsAllowed(host, allowedHosts)) return { risky: false, host };
  }
  return { risky: linkCarriesData(afterScheme, host), host };
}

/**
 * A link waits for a click, an image is fetched on render: a link is never
 * judged more strictly than the same URL would be as an image. A query of a
 * few short settings (`?color=21bb42&label=%F0%9F%93%A6%20npm`, a badge URL
 * written bare inside an HTML `src`) is not data in either; the fragment,
 * which a clicked page's script can read, is still judged for links.
 */
function linkCarriesData(afterScheme: string, host: string): boolean {
  const hash = afterScheme.indexOf('#');
  const beforeHash = hash < 0 ? afterScheme : afterScheme.slice(0, hash);
  const q = beforeHash.indexOf('?');
  if (q >= 0 && imageQueryIsConfiguration(beforeHash.slice(q + 1))) {
    const fragment = hash < 0 ? '' : afterScheme.slice(hash);
    return urlCarriesData(beforeHash.slice(0, q) + fragment, host);
  }
  return urlCarriesData(afterScheme, host);
}
