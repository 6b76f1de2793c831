/**
 * Asks the person for host permission on a site outside the manifest's
 * default hosts. Must be called synchronously from a click handler: both
 * browsers refuse `permissions.request` outside a user gesture.
 */
import browser from 'webextension-polyfill';
import { sitePermissionPattern } from './site-permission.ts';

export function requestSitePermission(site: string): Promise<boolean> {
  try {
    return browser.permissions
      .request({ origins: [sitePermissionPattern(site)] })
      .catch(() => false);
  } catch {
    return Promise.resolve(false);
  }
}

/** The manifest's default host permissions. */
export function manifestHostPermissions(): string[] {
  return browser.runtime.getManifest().host_permissions ?? [];
}
