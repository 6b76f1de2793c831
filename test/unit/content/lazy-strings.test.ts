/**
 * lazy-strings.ts: a page's notice and dialog strings are looked up when read, not
 * when the guard starts (the first lookup loads the message catalogue, issue 19 §4).
 */
import { describe, expect, it } from 'vitest';
import { lazyStrings } from '../../../src/content/lazy-strings.ts';

describe('lazyStrings', () => {
  it('looks nothing up until a field is read, then the field’s key each time', () => {
    const asked: string[] = [];
    const translate = (key: string) => {
      asked.push(key);
      return `<${key}>`;
    };
    const strings = lazyStrings(translate, { title: 'confirm_send_title', close: 'notice_close' });
    // As install-outgoing.ts adds fields: Object.assign keeps the getters of its target.
    const withMore = Object.assign(strings, { bound: lazyStrings(translate, { edit: 'e' }) });
    expect(asked).toEqual([]);
    expect(withMore.title).toBe('<confirm_send_title>');
    expect(withMore.bound.edit).toBe('<e>');
    expect(strings.close).toBe('<notice_close>');
    expect(asked).toEqual(['confirm_send_title', 'e', 'notice_close']);
    expect(Object.keys(strings)).toEqual(['title', 'close', 'bound']);
  });
});
