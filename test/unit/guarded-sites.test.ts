import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  guardedMatchPatterns,
  isGuardedUrl,
  matchesPattern,
  type ContentScriptManifest,
} from '../../src/ui/guarded-sites.ts';

interface SourceManifest {
  host_permissions: string[];
  permissions: string[];
  content_scripts?: { matches: string[]; js: string[]; world?: string; run_at: string }[];
}

const manifest = JSON.parse(
  readFileSync(new URL('../../manifest.json', import.meta.url), 'utf8'),
) as SourceManifest;

describe('matchesPattern', () => {
  it.each([
    ['https://chatgpt.com/*', 'https://chatgpt.com/c/123', true],
    ['https://chatgpt.com/*', 'http://chatgpt.com/', false],
    ['https://chatgpt.com/*', 'https://evilchatgpt.com/', false],
    ['http://127.0.0.1/*', 'http://127.0.0.1:41234/', true],
    ['http://localhost/*', 'http://localhost:3000/chat?x=1', true],
    ['*://*/*', 'https://example.org/a', true],
    ['*://*/*', 'ftp://example.org/a', false],
    ['https://*.google.com/*', 'https://gemini.google.com/app', true],
    ['https://*.google.com/*', 'https://google.com/', true],
    ['https://*.google.com/*', 'https://google.com.evil.net/', false],
    ['https://claude.ai/chat/*', 'https://claude.ai/chat/abc', true],
    ['https://claude.ai/chat/*', 'https://claude.ai/settings', false],
    ['<all_urls>', 'https://x.y/', true],
    ['not a pattern', 'https://x.y/', false],
  ])('%s ~ %s → %s', (pattern, url, expected) => {
    expect(matchesPattern(pattern, new URL(url))).toBe(expected);
  });
});

describe('the manifest', () => {
  // Issue 4: no static content scripts; the background registers them per site for the
  // sites switched on (src/background/script-registration.ts). The hosts guarded by
  // default are the ones `host_permissions` grants without a prompt.
  const patterns = manifest.host_permissions;

  it('grants the known chat hosts and the local mock chat', () => {
    for (const url of [
      'https://chatgpt.com/',
      'https://chat.openai.com/',
      'https://claude.ai/new',
      'https://gemini.google.com/app',
      'https://chat.deepseek.com/',
      'http://127.0.0.1:8787/',
      'http://localhost:5173/',
    ]) {
      expect(isGuardedUrl(url, patterns), url).toBe(true);
    }
    expect(isGuardedUrl('https://example.org/', patterns)).toBe(false);
    expect(isGuardedUrl(undefined, patterns)).toBe(false);
    expect(isGuardedUrl('chrome://extensions', patterns)).toBe(false);
  });

  it('asks for least privilege and declares no static content script', () => {
    // activeTab: the popup may read the current tab's URL only when the person opens it.
    // alarms (no install warning): wakes a stopped background for the audit export's retry
    // (issue 21 §2, docs/deployment.md "Permissions"); Firefox cannot make it optional.
    expect(manifest.permissions.sort()).toEqual(['activeTab', 'alarms', 'scripting', 'storage']);
    expect(manifest.content_scripts).toBeUndefined();
    expect(guardedMatchPatterns(manifest satisfies ContentScriptManifest)).toEqual([]);
  });
});
