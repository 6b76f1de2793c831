/**
 * Issue 19 §3: plain URLs skip the full exfil verdict (plain-url.ts). For any
 * URL near the plain shape (hosts and paths whose units sit on either side of
 * each limit the shortcut relies on), through every Markdown shape the exfil
 * rules validate, both targets and several allow-lists, the verdict with the
 * shortcut equals the one without it (the slow path: `judgeUrl`).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { exfilLinkVerdict } from '../../src/core/rules/validators/exfil-link.ts';
import { plainUrlHost, plainUrlShortcut } from '../../src/core/rules/validators/plain-url.ts';
import { PROPERTY_RUNS } from '../support/text-arbitraries.ts';

const scheme = fc.constantFrom('https://', 'http://', 'HTTPS://', 'http:/', 'https:///', 'ftp://');

const label = fc.constantFrom(
  'docs',
  'example',
  'com',
  'a-b',
  'x9',
  // 19 and 20 units, letters and digits: only the second may be data.
  'a9f3k2m8q7w1z5x0c4v',
  'a9f3k2m8q7w1z5x0c4v6',
  'cloudcommerceconsumerprocurement',
  'Docs',
  'd%6fcs',
  'xn--bcher-kva',
  '',
);
const host = fc.array(label, { minLength: 1, maxLength: 5 }).map((ls) => ls.join('.'));

const segment = fc.constantFrom(
  'guide',
  'always',
  '55',
  'en-US',
  'Web',
  'API',
  'file.tar.gz',
  'a_b~c',
  // 15 and 16 units mixing cases and digits: only the second may be a blob.
  'c2VjcmV0VG9rZW4',
  'c2VjcmV0VG9rZW4x',
  'c2VjcmV0VG9rZW4xMjM0',
  'abcdefghijklmnopqrstuvwxyz0123456789',
  'QWEabcRTY123defUIO456gh',
  'q=a',
  'a+b+c',
  'a%20b%20c',
  'x&y=1',
  '',
);
const tail = fc.constantFrom(
  '',
  '/',
  '?q=1',
  ':8080',
  '\\x',
  ' x',
  '.',
  ')',
  '@h',
  '#top',
  '#a-b_c.d',
  '#',
  // 15 and 16 units: only the second may hold a run that is data.
  '#abcdefghijklmno',
  '#abcdefghijklmnop',
  '#c2VjcmV0VG9rZW4x',
  // 32 units of one case: a run that is data in a fragment.
  '#abcdefghijklmnopqrstuvwxyz012345',
  '#a+b',
  '#x%20y',
  '#:~:text=a%20b',
  '#a#b',
);

const nearPlain = fc
  .tuple(scheme, host, fc.array(segment, { maxLength: 5 }), tail)
  .map(([s, h, segs, t]) => s + h + segs.map((g) => `/${g}`).join('') + t);

const ALLOW_LISTS: readonly (readonly string[])[] = [[], ['example.com'], ['*.docs.example.com']];

/** The shapes the exfil rules hand a URL to the validator in (url-verdict-memo.test.ts). */
function shapes(url: string): Array<[string, 'link' | 'image']> {
  return [
    [`[text](${url})`, 'link'],
    [`${url})`, 'link'],
    [url, 'link'],
    [`[ref]: ${url}`, 'link'],
    [`<${url}>`, 'image'],
    [`![alt](${url})`, 'image'],
    [url, 'image'],
    [`[cut](${url}`, 'link'],
  ];
}

function verdict(text: string, allowed: readonly string[], target: 'link' | 'image', on: boolean) {
  plainUrlShortcut.enabled = on;
  // A new array each time: its memo is empty, so each verdict is judged afresh.
  return exfilLinkVerdict(text, [...allowed], target);
}

afterEach(() => {
  plainUrlShortcut.enabled = true;
});

describe('plain URLs skip the full exfil verdict', () => {
  it('any URL near the plain shape, any shape and allow-list: same verdict with and without', () => {
    fc.assert(
      fc.property(nearPlain, (url) => {
        for (const allowed of ALLOW_LISTS) {
          for (const [text, target] of shapes(url)) {
            expect(verdict(text, allowed, target, true)).toEqual(
              verdict(text, allowed, target, false),
            );
          }
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('takes the shortcut for documentation links and not for data', () => {
    expect(plainUrlHost('https://docs.example.com/en-US/docs/Web/API/fetch')).toBe(
      'docs.example.com',
    );
    expect(plainUrlHost('http://localhost')).toBe('localhost');
    expect(plainUrlHost('https://example.org/guide#install')).toBe('example.org');
    expect(plainUrlHost('https://example.org#top')).toBe('example.org');
    expect(plainUrlHost('https://evil.example/u/c2VjcmV0VG9rZW4xMjM0')).toBeNull();
    expect(plainUrlHost('https://a9f3k2m8q7w1z5x0c4v6.evil.example/')).toBeNull();
    expect(plainUrlHost('https://evil.example/log?q=1')).toBeNull();
  });
});
