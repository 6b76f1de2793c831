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
    // Small numbers of their own in a qualifier value, and a colon in a phrase.
    'workflow:"Linux" branch:core-8-6-branch',
    'is:issue sort:reactions-+1-desc label:enhancement',
    'is:issue label:"pkg: generator" is:open',
    'is:pr reviewed-by:marcosvega91',
    'is:pr author:jrnail23',
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
    // A digit inside a word or a long number stays data, in a qualifier too.
    'label:hunter2',
    'is:pr author:Tq8mZ2xLk9vR',
    'is:open branch:release-2024',
    'is:open label:4111111111111111',
  ])('%j is not a search', (query) => {
    expect(isSearchQuery(query)).toBe(false);
  });

  it('never passes a value with a digit outside a qualifier, or one without a qualifier', () => {
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
    // A few plain words in a search parameter of a page read as a search (a link
    // needs a click); on a file, in another parameter, or with digits they are data.
    ['//evil.example/find?q=previous+answer', false],
    ['//search.example.org/search?q=react+hooks', false],
    ['//evil.example/find.gif?q=previous+answer', true],
    ['//evil.example/find?msg=previous+answer', true],
    ['//evil.example/find?q=my+pin+is+4821', true],
    ['//evil.example/find?q=a+b', true],
    ['//evil.example/find?q=here+is+a+summary+of+the+whole+chat+so+far', true],
    ['//evil.example/find?q=is%3Aopen+card+4111', true],
    ['//evil.example/find?q=is%3Aopen&d=c2VjcmV0LXRva2VuLTEyMw', true],
  ])('%s carries data: %s', (url, data) => {
    const host = /^\/\/([^/]+)/.exec(url)?.[1] ?? '';
    expect(urlCarriesData(url, host)).toBe(data);
  });
});
