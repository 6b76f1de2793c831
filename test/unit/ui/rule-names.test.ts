import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  actionName,
  kindName,
  readableId,
  ruleName,
  ruleNameKey,
} from '../../../src/ui/rule-names.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { englishMessage } from './fake-browser.ts';

/** `t` with the English catalogue: the key itself when missing, like src/ui/i18n.ts. */
const t = (key: string, substitutions?: string | string[]) =>
  englishMessage(key, substitutions) || key;

describe('rule names in plain words', () => {
  it('names known rules from the catalogue', () => {
    expect(ruleName('aws-access-key-id', t)).toBe('AWS access key');
    expect(ruleName('github-pat', t)).toBe('GitHub token');
    expect(ruleName('markdown-image-exfil', t)).toBe('Image link that sends data to another site');
  });

  it('falls back to a readable form of an unknown id', () => {
    expect(ruleName('team-project-codename', t)).toBe('Team project codename');
    expect(ruleName('acme_internal.token', t)).toBe('Acme internal token');
    expect(ruleName('aws-secret-access-key', t)).toBe('AWS secret access key');
    expect(ruleName('gcp-oauth-client-secret', t)).toBe('GCP oauth client secret');
  });

  it('keeps message names to the characters browser.i18n allows', () => {
    expect(ruleNameKey('a-b.c d')).toBe('rule_a_b_c_d');
    expect(ruleNameKey('aws-access-key-id')).toMatch(/^[A-Za-z0-9_@]+$/);
  });

  it('readableId keeps the words of any id, never empties it', () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    // Case aside (abbreviations are upper-cased), the words are the id's.
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        const readable = readableId(words.join('-'));
        expect(readable.toLowerCase()).toBe(words.join(' '));
        expect(readable.length).toBeGreaterThan(0);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('names kinds and actions', () => {
    expect(kindName('pii', t)).toBe('Personal data');
    expect(kindName('error', t)).toBe('Guard error');
    expect(actionName('block', t)).toBe('Blocked');
    expect(actionName('send-anyway', t)).toBe('Sent anyway');
    expect(actionName('hold', t)).toBe('Held');
  });
});
