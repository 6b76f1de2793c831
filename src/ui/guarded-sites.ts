/**
 * Which pages the guard runs on, read from the manifest's MAIN-world content script
 * (the single source of truth), and a matcher for WebExtension match patterns.
 */

/** The minimal manifest shape this module reads. */
export interface ContentScriptManifest {
  content_scripts?: { matches?: string[]; world?: string }[];
}

/** Match patterns of the MAIN-world content script: the hosts where the guard runs. */
export function guardedMatchPatterns(manifest: ContentScriptManifest): string[] {
  const patterns = new Set<string>();
  for (const script of manifest.content_scripts ?? []) {
    if (script.world !== 'MAIN') continue;
    for (const pattern of script.matches ?? []) patterns.add(pattern);
  }
  return [...patterns];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * True when `url` matches the match pattern (`<all_urls>`, `scheme://host/path`, with
 * `*` scheme for http/https, `*.` host prefixes and `*` path globs). Ports are ignored,
 * as browsers do for patterns without one.
 */
export function matchesPattern(pattern: string, url: URL): boolean {
  const scheme = url.protocol.slice(0, -1);
  if (pattern === '<all_urls>') return ['http', 'https', 'ws', 'wss', 'file'].includes(scheme);
  const parsed = /^(\*|[a-z][a-z0-9+.-]*):\/\/([^/]*)(\/.*)$/.exec(pattern);
  if (!parsed) return false;
  const [, patternScheme = '', patternHost = '', patternPath = '/'] = parsed;
  if (patternScheme === '*' ? scheme !== 'http' && scheme !== 'https' : patternScheme !== scheme) {
    return false;
  }
  const host = url.hostname.toLowerCase();
  const wantedHost = patternHost.toLowerCase().replace(/:\d+$/, '');
  if (wantedHost !== '*') {
    if (wantedHost.startsWith('*.')) {
      const base = wantedHost.slice(2);
      if (host !== base && !host.endsWith(`.${base}`)) return false;
    } else if (host !== wantedHost) {
      return false;
    }
  }
  const pathRegExp = new RegExp(`^${patternPath.split('*').map(escapeRegExp).join('.*')}$`);
  return pathRegExp.test(url.pathname + url.search);
}

/** True when the guard's MAIN-world script runs on `url`. */
export function isGuardedUrl(url: string | undefined, patterns: string[]): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return patterns.some((pattern) => matchesPattern(pattern, parsed));
}
