/**
 * Background (a service worker in Chrome, an event page in Firefox).
 * Shell version: writes the default settings on install.
 */

import browser from 'webextension-polyfill';
import { ensureDefaultSettings } from './settings.ts';

browser.runtime.onInstalled.addListener(() => {
  ensureDefaultSettings(browser.storage.local).catch((error: unknown) => {
    console.error('Chat Stream Guard: could not write default settings', error);
  });
});
