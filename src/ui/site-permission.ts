/**
 * Host permission for a site the person switches on. The known chat sites and
 * localhost are in the manifest's `host_permissions`; any other site is asked
 * for through `optional_host_permissions` (least privilege, issue 4). The
 * decision must be synchronous: `permissions.request` only works inside the
 * click handler's user gesture, before any `await`.
 */
import { matchesPattern } from './guarded-sites.ts';

/** The match pattern asked for a site key (`example.com`, `localhost:3000`): every scheme and port. */
export function sitePermissionPattern(site: string): string {
  const host = site.startsWith('[') ? site.replace(/\]:\d+$/, ']') : site.replace(/:\d+$/, '');
  return `*://${host}/*`;
}

/** True when a manifest host permission already covers the site (over http or https). */
export function coveredByManifest(site: string, hostPermissions: readonly string[]): boolean {
  const host = site.startsWith('[') ? site.replace(/\]:\d+$/, ']') : site.replace(/:\d+$/, '');
  const urls: URL[] = [];
  for (const scheme of ['https', 'http']) {
    try {
      urls.push(new URL(`${scheme}://${host}/`));
    } catch {
      return false;
    }
  }
  return hostPermissions.some((pattern) => urls.some((url) => matchesPattern(pattern, url)));
}
