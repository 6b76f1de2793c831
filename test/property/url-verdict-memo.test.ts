/**
 * Issue 19 §3: the exfil rules share one verdict per URL (exfil-link.ts,
 * `urlVerdict`, a bounded memo per allow-list). For any URL, read through any
 * of the Markdown shapes the rules validate (inline link, bare URL, link
 * definition, autolink, image), and whatever URLs were judged before it, the
 * verdict equals the one a fresh memo gives (a new allow-list array, so
 * nothing is remembered: the slow path).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exfilLinkVerdict } from '../../src/core/rules/validators/exfil-link.ts';
import { PROPERTY_RUNS } from '../support/text-arbitraries.ts';

const ALLOWED = ['docs.example.org', '*.cdn.example.net'];

const part = fc.constantFrom(
  'https://',
  'http://',
  'HTTP://',
  '//',
  'mailto:',
  'javascript:',
  'data:',
  'docs.example.org',
  'img.cdn.example.net',
  'host.example',
  'a9f3k2m8q7w1z5x0c4v6.host.example',
  '/',
  '/guide',
  '/n_(1)',
  '?',
  '#',
  '=',
  '&',
  '+',
  '%20',
  'q=two+words',
  'style=flat',
  'c2VjcmV0VG9rZW4xMjM0',
  'user:pw@',
  '(',
  ')',
  '\\',
  ' ',
  '<',
  '>',
  '&amp;',
  '\u3002',
  'Ｅ',
);
const urlOf = fc.array(part, { minLength: 1, maxLength: 10 }).map((p) => p.join(''));

/** The shapes the exfil rules hand a URL to the validator in. */
function shapes(url: string): Array<[string, 'link' | 'image']> {
  return [
    [`[text](${url})`, 'link'],
    [`${url})`, 'link'],
    [url, 'link'],
    [`[ref]: ${url}`, 'link'],
    [`[ref]: <${url}>`, 'link'],
    [`<${url}>`, 'image'],
    [`![alt](${url})`, 'image'],
    [`[cut](${url}`, 'link'],
  ];
}

describe('one verdict per URL, shared by the exfil rules', () => {
  it('any URLs in any order: the remembered verdict equals a fresh one', () => {
    const shared: readonly string[] = [...ALLOWED];
    fc.assert(
      fc.property(fc.array(urlOf, { minLength: 1, maxLength: 8 }), (urls) => {
        for (const url of urls) {
          for (const [text, target] of shapes(url)) {
            const fresh = exfilLinkVerdict(text, [...ALLOWED], target);
            expect(exfilLinkVerdict(text, shared, target)).toEqual(fresh);
          }
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
