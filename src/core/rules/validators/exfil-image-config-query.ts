/**
 * Is an image URL's query only configuration? Badges and generated images
 * take a few short settings in the query (`?style=flat&logo=github`,
 * `?branch=main`, `?version=2`, `?width=890&button=false`, `?color=7389d8`,
 * `?label=%20`); exfiltration puts what the model was told to append there
 * (conversation text, a secret, a phone number, an encoded blob). A rendered
 * image is fetched without a click (issue 6, exfil), so the bar is strict:
 * every parameter must have a name shaped like an identifier and a value of
 * one of the shapes below, and the query is short. Anything else (a space
 * between words, a digit mixed into letters as in `hunter2`, a number long
 * enough to be a phone or card number, punctuation, a blob) is data.
 *
 * A parameter with a one-letter name (`?d=`, `?q=`, the exfiltration idiom)
 * is data whatever its value, so `?v=1` on an image is not passed as a setting.
 *
 * What this cannot tell apart: a single short lower-case word under a longer
 * name chosen by the attacker (`?data=yes`). That channel carries a few bits per image; closing it
 * would also block every badge, so it stays open by design and the
 * allow-list is the way to close it completely.
 */

/** Longest query (after `?`) still judged as settings; a longer one is data. */
const MAX_QUERY = 160;
/** Most parameters a settings query has; more is a channel with many slots. */
const MAX_PARAMS = 8;

const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/**
 * Value shapes that settings take, judged on the percent-decoded value:
 * empty; at most one space (`label=%20`, an empty badge label); words of
 * letters only, lower-case, Capitalised or camelCase, joined by `-` or `_`
 * (`for-the-badge`, `brightgreen`, `Edge`), at most 24 characters; a number of
 * up to 4 digits (`890`, `1000`); a version (`1.2.3`, `v2`); a hex colour of
 * 3 or 6 digits (`#`-prefixed, or bare under a colour parameter name).
 */
const SETTING_VALUE: readonly RegExp[] = [
  /^\s?$/,
  /^(?=.{1,24}$)[A-Za-z][a-z]*(?:[A-Z][a-z]+)*(?:[-_][A-Za-z][a-z]*(?:[A-Z][a-z]+)*)*$/,
  /^v?[0-9]{1,4}(?:\.[0-9]{1,4}){0,3}$/,
  /^#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?$/,
];

/**
 * A colour without `#` (`color=7389d8`) looks like any six hex digits, so it
 * passes only under a colour-ish parameter name: `?d=abc123` stays data.
 */
const COLOUR_NAME = /colou?r|^(?:bg|fg|fill|stroke)$/i;
const BARE_HEX_COLOUR = /^[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?$/;

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function isSetting(pair: string): boolean {
  if (pair === '') return true; // `?&style=…`: an empty slot carries nothing.
  const eq = pair.indexOf('=');
  if (eq < 0) return PARAM_NAME.test(pair); // a bare flag: `?raw`
  const name = pair.slice(0, eq);
  const value = decoded(pair.slice(eq + 1));
  if (!PARAM_NAME.test(name) || value === undefined) return false;
  // One-letter names are the exfiltration idiom (`?d=…`, `?q=…`, `?x=…`), and
  // a digit or two is a channel too (`?d=1`, as the wire fixtures probe): data,
  // whatever the value. The cost: a cache-busting `?v=2` on an image from a
  // host not on the allow-list is neutralised as well (fail closed).
  if (name.length === 1) return false;
  if (COLOUR_NAME.test(name) && BARE_HEX_COLOUR.test(value)) return true;
  return SETTING_VALUE.some((shape) => shape.test(value));
}

/** `query` is what follows `?` up to any `#`, as written in the URL. */
export function imageQueryIsConfiguration(query: string): boolean {
  if (query.length > MAX_QUERY) return false;
  const pairs = query.split('&');
  if (pairs.filter((p) => p !== '').length > MAX_PARAMS) return false;
  return pairs.every(isSetting);
}
