/**
 * Search queries in qualifier syntax are not data (search-query.ts): READMEs
 * link to code-host searches, while prose, numbers and blobs in a query stay
 * data for the exfil validators.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSearchQuery } from '../../../src/core/rules/validators/search-query.ts';
import { urlCarriesData } from '../../../src/core/rules/validators/url-carries-data.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

describe('isSearchQuery', () => {
  it.each([
    'is:issue is:open',
    'is:pr -label:docs in:title release notes',
    'label:"good first issue" sort:updated',
    'repo:owner/name is:closed',
    'from:alice subject:invoice',
    'site:docs.example.org streaming parser',
  ])('%j is a search', (query) => {
    expect(isSearchQuery(query)).toBe(true);
  });

  it.each([
    '',
    'previous message',
    'my password is hunter',
    'is:open my pin is 4821',
    'label:v2',
    'token:c2VjcmV0LXRva2Vu',
    'is:open {"user":"alice"}',
    'is:open "unclosed phrase',
    "is:open johann's notes",
    'is:open averyveryveryverylongwordthatisnotprose',
    `is:open ${'word '.repeat(16)}`,
  ])('%j is not a search', (query) => {
    expect(isSearchQuery(query)).toBe(false);
  });

  it('never passes a value holding a digit, or one without a qualifier', () => {
    const word = fc.stringMatching(/^[a-z]{1,10}$/);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), fc.integer({ min: 0, max: 9 }), (ws, d) => {
        expect(isSearchQuery(['is:open', ...ws, String(d)].join(' '))).toBe(false);
        expect(isSearchQuery(ws.join(' '))).toBe(false);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

describe('urlCarriesData with search links', () => {
  it.each([
    ['//code.example.org/o/r/pulls?q=is%3Apr+is%3Amerged+label%3A%22needs+review%22', false],
    ['//code.example.org/o/r/issues?q=is:issue+-label:wontfix+crash+report', false],
    ['//evil.example/find?q=previous+answer', true],
    ['//evil.example/find?q=is%3Aopen+card+4111', true],
    ['//evil.example/find?q=is%3Aopen&d=c2VjcmV0LXRva2VuLTEyMw', true],
  ])('%s carries data: %s', (url, data) => {
    const host = /^\/\/([^/]+)/.exec(url)?.[1] ?? '';
    expect(urlCarriesData(url, host)).toBe(data);
  });
});
