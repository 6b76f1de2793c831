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
 * is data whatever its value, except the size and version settings of avatars
 * and thumbnails (`?s=100`, `?v=4`, `?w=640&h=480`) with a small number. A
 * value that is itself a URL carrying no data (`?url=https%3A%2F%2F…`, badge
 * endpoints) is a setting too.
 *
 * What this cannot tell apart: a single short lower-case word under a longer
 * name chosen by the attacker (`?data=yes`). That channel carries a few bits per image; closing it
 * would also block every badge, so it stays open by design and the
 * allow-list is the way to close it completely.
 */
import { urlCarriesData } from './url-carries-data.ts';

/** Longest query (after `?`) still judged as settings; a longer one is data. */
const MAX_QUERY = 160;
/** Most parameters a settings query has; more is a channel with many slots. */
const MAX_PARAMS = 8;

const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/**
 * Value shapes that settings take, judged on the percent-decoded value:
 * empty; at most one space (`label=%20`, an empty badge label); words of
 * letters only, lower-case, Capitalised, camelCase or an acronym of up to five
 * capitals, joined by `-`, `_` or `.`, with numbers of one or two digits
 * between them (`for-the-badge`, `brightgreen`, `Edge`, `dev.to`, `CI`,
 * `core-8-6-branch`), after an emoji if the label starts with one, at most 24
 * characters; a number of
 * up to 4 digits (`890`, `1000`); a version (`1.2.3`, `v2`); a hex colour of
 * 3 or 6 digits (`#`-prefixed, or bare under a colour parameter name).
 */
const WORD = String.raw`(?:[A-Z]{2,5}|[A-Za-z][a-z]*(?:[A-Z][a-z]+)*)`;

const SETTING_VALUE: readonly RegExp[] = [
  /^\s?$/,
  new RegExp(
    String.raw`^(?=.{1,24}$)(?:\p{Extended_Pictographic}\uFE0F?\s?)?${WORD}(?:[-_.](?:${WORD}|[0-9]{1,2}))*$`,
    'u',
  ),
  /^v?[0-9]{1,4}(?:\.[0-9]{1,4}){0,3}$/,
  /^#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?$/,
];

/**
 * A colour without `#` (`color=7389d8`) looks like any six hex digits, so it
 * passes only under a colour-ish parameter name: `?d=abc123` stays data.
 */
const COLOUR_NAME = /colou?r|^(?:bg|fg|fill|stroke)$/i;
const BARE_HEX_COLOUR = /^[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?$/;

/** A cache duration in seconds (`?maxAge=2592000`, `?cacheSeconds=3600`): a number of up to eight digits. */
const DURATION_NAME = /(?:age|seconds|ttl|timeout|duration|interval)$/i;

/** A repository or package named as `owner/name` (`?repo=crxjs/chrome-extension-tools`). */
const REPO_NAME = /^(?:repo|repository|project|package|pkg|slug)$/i;
const REPO = /^@?[a-z][a-z0-9-]{0,38}\/[a-z][a-z0-9._-]{0,63}$/i;

/** One-letter names of size and version settings: `s`ize, `v`ersion, `w`idth, `h`eight. */
const SIZE_OR_VERSION = /^[svwh]$/;

/**
 * A value that is itself an absolute http(s) URL (`?url=https%3A%2F%2F…`, as
 * badge endpoints take) is a setting when that URL carries no data by its own
 * shape (`url-carries-data.ts`), has no fragment and at most a query of
 * settings of its own (one level deep).
 */
function nestedUrlIsPlain(value: string, depth: number): boolean {
  const m = /^https?:\/\/([^/?#\s]{1,253})([^?#\s]*)(?:\?([^#\s]*))?$/i.exec(value);
  if (m === null || depth > 0) return false;
  const host = (m[1] ?? '').toLowerCase();
  const query = m[3];
  if (query !== undefined && !settingsOnly(query, depth + 1)) return false;
  return !urlCarriesData(`//${host}${m[2] ?? ''}`, host);
}

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function isSetting(pair: string, depth: number): boolean {
  if (pair === '') return true; // `?&style=…`: an empty slot carries nothing.
  const eq = pair.indexOf('=');
  if (eq < 0) return PARAM_NAME.test(pair); // a bare flag: `?raw`
  const name = pair.slice(0, eq);
  const value = decoded(pair.slice(eq + 1));
  if (!PARAM_NAME.test(name) || value === undefined) return false;
  // One-letter names are the exfiltration idiom (`?d=…`, `?q=…`, `?x=…`), and
  // a digit or two is a channel too (`?d=1`, as the wire fixtures probe): data,
  // whatever the value. Except the size and version settings avatars and
  // thumbnails take (`?s=100`, `?v=4`, `?w=640&h=480`), with a number of up to
  // four digits: a channel of a few digits per image, as any number setting is.
  if (name.length === 1) return SIZE_OR_VERSION.test(name) && /^[0-9]{1,4}$/.test(value);
  if (nestedUrlIsPlain(value, depth)) return true;
  if (COLOUR_NAME.test(name) && BARE_HEX_COLOUR.test(value)) return true;
  if (DURATION_NAME.test(name) && /^[0-9]{1,8}$/.test(value)) return true;
  if (REPO_NAME.test(name) && REPO.test(value)) return true;
  return SETTING_VALUE.some((shape) => shape.test(value));
}

/**
 * `query` is what follows `?` up to any `#`, as written in the URL. A second
 * `?` separates settings as `&` does (`?v=4?s=100`, a common slip in README
 * avatar links): each piece is judged on its own.
 */
export function imageQueryIsConfiguration(query: string): boolean {
  return settingsOnly(query, 0);
}

function settingsOnly(query: string, depth: number): boolean {
  if (query.length > MAX_QUERY) return false;
  const pairs = query.split(/[&?]/);
  if (pairs.filter((p) => p !== '').length > MAX_PARAMS) return false;
  return pairs.every((pair) => isSetting(pair, depth));
}
