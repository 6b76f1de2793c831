/**
 * UI strings come from `_locales/<lang>/messages.json` through `browser.i18n`
 * (English and Simplified Chinese). A key missing from the catalogue shows as
 * the key itself, so a gap is visible instead of an empty label.
 */
import browser from 'webextension-polyfill';

/** Looks up a message; `substitutions` fill the `$1`…`$9` placeholders. */
export type Translate = (key: string, substitutions?: string | string[]) => string;

export const t: Translate = (key, substitutions) => {
  const message = browser.i18n.getMessage(key, substitutions);
  return message === '' ? key : message;
};

/** The UI language as the browser resolved it (for `<html lang>`). */
export function uiLanguage(): string {
  return browser.i18n.getUILanguage();
}
