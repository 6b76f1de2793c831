import type { Scripting } from 'webextension-polyfill';
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../src/background/default-settings.ts';
import {
  CONTENT_SCRIPT_FILES,
  sitePatterns,
  syncRegistration,
  type ScriptingApi,
} from '../../../src/background/script-registration.ts';

/** An in-memory `browser.scripting` with the registration semantics the sync relies on. */
function fakeScripting() {
  const registered = new Map<string, Scripting.RegisteredContentScript>();
  const calls: string[] = [];
  const api: ScriptingApi = {
    getRegisteredContentScripts: async (filter) =>
      [...registered.values()]
        .filter((s) => !filter?.ids || filter.ids.includes(s.id))
        .map((s) => structuredClone(s)),
    registerContentScripts: async (scripts) => {
      calls.push(`register ${scripts.map((s) => s.id).join(',')}`);
      for (const script of scripts) {
        if (registered.has(script.id)) throw new Error(`duplicate id ${script.id}`);
        if (!script.matches?.length) throw new Error('matches must not be empty');
        // Chrome's own check (seen in Chromium, issue 18 §2 with issue 20's path-scoped site):
        // with origin fallback, a pattern's path must be `/*`, or the whole call is refused.
        if (
          script.matchOriginAsFallback &&
          script.matches.some((m) => !/^[^:]+:\/\/[^/]*\/\*$/.test(m))
        ) {
          throw new Error(
            "The path component for scripts with 'match_origin_as_fallback' must be '*'.",
          );
        }
        registered.set(script.id, structuredClone(script));
      }
    },
    unregisterContentScripts: async (filter) => {
      calls.push(`unregister ${filter?.ids?.join(',')}`);
      for (const id of filter?.ids ?? [...registered.keys()]) registered.delete(id);
    },
  };
  return { api, registered, calls };
}

const allPermitted = async () => true;

describe('syncRegistration', () => {
  it('registers the MAIN hook and the bridge at document_start and the engine at document_end, in all frames', async () => {
    const { api, registered } = fakeScripting();
    const result = await syncRegistration(api, defaultSettings(), allPermitted);
    expect(result.changed).toBe(true);
    expect([...registered.keys()].sort()).toEqual(
      ['csg-bridge', 'csg-guard-engine', 'csg-main-world'].sort(),
    );
    const main = registered.get('csg-main-world');
    const bridge = registered.get('csg-bridge');
    const engine = registered.get('csg-guard-engine');
    expect(main).toMatchObject({
      world: 'MAIN',
      runAt: 'document_start',
      allFrames: true,
      matchOriginAsFallback: true,
      persistAcrossSessions: true,
      js: [CONTENT_SCRIPT_FILES.main],
    });
    expect(bridge).toMatchObject({
      world: 'ISOLATED',
      runAt: 'document_start',
      allFrames: true,
      matchOriginAsFallback: true,
      persistAcrossSessions: true,
      js: [CONTENT_SCRIPT_FILES.bridge],
    });
    // A later task than the page's first parse (src/content/engine-dock.ts, issue 4).
    expect(engine).toMatchObject({
      world: 'ISOLATED',
      runAt: 'document_end',
      allFrames: true,
      matchOriginAsFallback: true,
      persistAcrossSessions: true,
      js: [CONTENT_SCRIPT_FILES.engine],
    });
    expect(main?.matches).toContain('http://127.0.0.1/*');
    expect(main?.matches).toContain('https://chatgpt.com/*');
    expect(bridge?.matches).toEqual(main?.matches);
    expect(engine?.matches).toEqual(main?.matches);
  });

  it('replaces an older two-script registration with all three', async () => {
    const { api, registered, calls } = fakeScripting();
    await syncRegistration(api, defaultSettings(), allPermitted);
    // What an earlier version registered: the hook and a bridge that ran the engine itself.
    registered.delete('csg-guard-engine');
    calls.length = 0;
    const result = await syncRegistration(api, defaultSettings(), allPermitted);
    expect(result.changed).toBe(true);
    expect(calls).toEqual([
      'unregister csg-main-world,csg-bridge',
      'register csg-main-world,csg-bridge,csg-guard-engine',
    ]);
    expect(registered.get('csg-guard-engine')).toMatchObject({
      runAt: 'document_end',
      js: [CONTENT_SCRIPT_FILES.engine],
    });
    expect(registered.get('csg-guard-engine')?.matches).toEqual(
      registered.get('csg-main-world')?.matches,
    );
  });

  it('replaces a registration without origin fallback (issue 18 §2: about:blank, srcdoc, blob: frames)', async () => {
    const { api, registered, calls } = fakeScripting();
    await syncRegistration(api, defaultSettings(), allPermitted);
    for (const script of registered.values()) delete script.matchOriginAsFallback;
    calls.length = 0;
    const result = await syncRegistration(api, defaultSettings(), allPermitted);
    expect(result.changed).toBe(true);
    for (const script of registered.values()) expect(script.matchOriginAsFallback).toBe(true);
    calls.length = 0;
    expect((await syncRegistration(api, defaultSettings(), allPermitted)).changed).toBe(false);
    expect(calls).toEqual([]);
  });

  it('leaves a site switched off out of the matches, and re-adds it when switched on', async () => {
    const { api, registered } = fakeScripting();
    const settings = defaultSettings();
    settings.sites['127.0.0.1'] = { enabled: false };
    await syncRegistration(api, settings, allPermitted);
    expect(registered.get('csg-main-world')?.matches).not.toContain('http://127.0.0.1/*');
    expect(registered.get('csg-bridge')?.matches).not.toContain('http://127.0.0.1/*');
    expect(registered.get('csg-guard-engine')?.matches).not.toContain('http://127.0.0.1/*');
    settings.sites['127.0.0.1'] = { enabled: true };
    await syncRegistration(api, settings, allPermitted);
    expect(registered.get('csg-main-world')?.matches).toContain('http://127.0.0.1/*');
    expect(registered.get('csg-guard-engine')?.matches).toContain('http://127.0.0.1/*');
  });

  it('unregisters everything when no site is on', async () => {
    const { api, registered } = fakeScripting();
    const settings = defaultSettings();
    await syncRegistration(api, settings, allPermitted);
    for (const entry of Object.values(settings.sites)) entry.enabled = false;
    const result = await syncRegistration(api, settings, allPermitted);
    expect(result.sites).toEqual([]);
    expect(registered.size).toBe(0);
  });

  it('skips an enabled site the extension has no permission for', async () => {
    const { api, registered } = fakeScripting();
    const settings = defaultSettings();
    settings.sites['chat.example.org'] = { enabled: true };
    const result = await syncRegistration(
      api,
      settings,
      async (patterns) => !patterns.includes('*://chat.example.org/*'),
    );
    expect(result.sites).not.toContain('chat.example.org');
    expect(registered.get('csg-main-world')?.matches).not.toContain('*://chat.example.org/*');
    const granted = await syncRegistration(api, settings, allPermitted);
    expect(granted.sites).toContain('chat.example.org');
    expect(registered.get('csg-main-world')?.matches).toContain('*://chat.example.org/*');
  });

  it('does nothing when the registration already matches', async () => {
    const { api, calls } = fakeScripting();
    await syncRegistration(api, defaultSettings(), allPermitted);
    calls.length = 0;
    const again = await syncRegistration(api, defaultSettings(), allPermitted);
    expect(again.changed).toBe(false);
    expect(calls).toEqual([]);
  });

  it('uses the manifest pattern for a default site and http+https for any other', () => {
    expect(sitePatterns('claude.ai')).toEqual(['https://claude.ai/*']);
    expect(sitePatterns('localhost')).toEqual(['http://localhost/*']);
    expect(sitePatterns('chat.example.org')).toEqual(['*://chat.example.org/*']);
  });
});
