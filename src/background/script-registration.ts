/**
 * Per-site registration of the content scripts (issue 4: "a site switched off
 * gets no script at all"). The manifest declares no `content_scripts`; the
 * background registers them with `scripting.registerContentScripts` for exactly
 * the sites that are switched on and permitted, and re-syncs on install,
 * start-up and every settings change:
 * - the MAIN-world hook and the ISOLATED bridge at document_start, which take the
 *   private port before any page script runs;
 * - the ISOLATED guard engine at document_end, a later task, so compiling and
 *   starting it never lengthens the page's first parse task (engine-dock.ts).
 * All three share one match list, so the hook never runs without its bridge and
 * the bridge never without its engine.
 *
 * Issue 18 §2 (every context): `matchOriginAsFallback` also runs them in frames
 * whose URL has no host of its own but whose origin is a matched site's
 * (about:blank, about:srcdoc, blob: and data: URLs a matched page made). Chrome
 * (`scripting.RegisteredContentScript.matchOriginAsFallback`, since 119) and
 * Firefox (since 128, bug 1853411; blob: frames only with it, bug 1897113) both
 * support it; it needs match patterns whose path is `/*`, which every site
 * pattern has (sitePatterns). A frame the page uses in the same task it created
 * it, before any content script can run there, is hooked by the parent's MAIN
 * world instead (src/page/frame-hooks.ts).
 */
import type { Scripting } from 'webextension-polyfill';
import { CONTENT_SCRIPT_IDS } from '../protocol/runtime-messages.ts';
import { DEFAULT_SITE_PATTERNS, type Settings } from '../protocol/settings-schema.ts';

/** Where the build writes the standalone scripts (vite.config.ts `standaloneContentScripts`). */
export const CONTENT_SCRIPT_FILES = {
  main: 'src/page/main-world.js',
  bridge: 'src/content/bridge.js',
  engine: 'src/content/guard-engine.js',
} as const;

/** The part of `browser.scripting` the sync uses (a fake in unit tests). */
export interface ScriptingApi {
  getRegisteredContentScripts(
    filter?: Scripting.ContentScriptFilter,
  ): Promise<Scripting.RegisteredContentScript[]>;
  registerContentScripts(scripts: Scripting.RegisteredContentScript[]): Promise<void>;
  unregisterContentScripts(filter?: Scripting.ContentScriptFilter): Promise<void>;
}

/**
 * Match patterns for a site: a default site's exactly as in `host_permissions`
 * (so no prompt is ever needed for it), any other site over http and https.
 */
export function sitePatterns(site: string): string[] {
  return [...(DEFAULT_SITE_PATTERNS[site] ?? [`*://${site}/*`])];
}

export function enabledSites(settings: Settings): string[] {
  return Object.entries(settings.sites)
    .filter(([, entry]) => entry.enabled)
    .map(([site]) => site)
    .sort();
}

/**
 * A match pattern with its path widened to `/*`: Chrome refuses a registration with
 * `matchOriginAsFallback` whose pattern has any other path ("The path component for
 * scripts with 'match_origin_as_fallback' must be '*'"), and a refused registration
 * leaves every site without its scripts. The scripts still run only where the
 * extension holds the host permission (`https://huggingface.co/chat/*` grants the chat
 * pages only), so the path of a default site's permission still bounds them.
 */
export function originMatchPattern(pattern: string): string {
  const m = /^([^:]+:\/\/[^/]*)\//.exec(pattern);
  return m === null ? pattern : `${m[1]}/*`;
}

/** The registrations wanted for these match patterns; none when there are none. */
export function registrationsFor(matches: readonly string[]): Scripting.RegisteredContentScript[] {
  if (matches.length === 0) return [];
  const common = {
    matches: [...new Set(matches.map(originMatchPattern))].sort(),
    runAt: 'document_start' as const,
    allFrames: true,
    matchOriginAsFallback: true,
    persistAcrossSessions: true,
  };
  return [
    { ...common, id: CONTENT_SCRIPT_IDS.main, js: [CONTENT_SCRIPT_FILES.main], world: 'MAIN' },
    {
      ...common,
      id: CONTENT_SCRIPT_IDS.bridge,
      js: [CONTENT_SCRIPT_FILES.bridge],
      world: 'ISOLATED',
    },
    {
      ...common,
      id: CONTENT_SCRIPT_IDS.engine,
      js: [CONTENT_SCRIPT_FILES.engine],
      world: 'ISOLATED',
      runAt: 'document_end',
    },
  ];
}

function sameRegistration(
  a: Scripting.RegisteredContentScript | undefined,
  b: Scripting.RegisteredContentScript,
): boolean {
  if (a === undefined) return false;
  const sorted = (list: string[] | undefined) => JSON.stringify([...(list ?? [])].sort());
  return (
    a.id === b.id &&
    sorted(a.matches) === sorted(b.matches) &&
    sorted(a.js) === sorted(b.js) &&
    (a.world ?? 'ISOLATED') === b.world &&
    a.runAt === b.runAt &&
    a.allFrames === b.allFrames &&
    // A registration from before issue 18 §2 lacks it and is replaced.
    (a.matchOriginAsFallback ?? false) === (b.matchOriginAsFallback ?? false)
  );
}

export interface RegistrationResult {
  /** Sites whose scripts are registered now. */
  sites: string[];
  changed: boolean;
}

/**
 * Makes the registered scripts match the enabled sites the extension may access.
 * Idempotent; callers serialise calls (service-worker.ts) so two syncs never
 * interleave their unregister/register steps.
 */
export async function syncRegistration(
  scripting: ScriptingApi,
  settings: Settings,
  isPermitted: (patterns: string[]) => Promise<boolean>,
): Promise<RegistrationResult> {
  const sites: string[] = [];
  for (const site of enabledSites(settings)) {
    if (await isPermitted(sitePatterns(site))) sites.push(site);
  }
  const matches = [...new Set(sites.flatMap(sitePatterns))].sort();
  const wanted = registrationsFor(matches);
  const ids = Object.values(CONTENT_SCRIPT_IDS);
  const existing = await scripting.getRegisteredContentScripts({ ids });
  const unchanged =
    existing.length === wanted.length &&
    wanted.every((script) =>
      sameRegistration(
        existing.find((e) => e.id === script.id),
        script,
      ),
    );
  if (unchanged) return { sites, changed: false };
  if (existing.length > 0) {
    await scripting.unregisterContentScripts({ ids: existing.map((script) => script.id) });
  }
  if (wanted.length > 0) await scripting.registerContentScripts(wanted);
  return { sites, changed: true };
}
