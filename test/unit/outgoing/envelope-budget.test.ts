/**
 * Envelopes under a byte budget (seed 000 §3–4 and §7): a truncated item is
 * never under 64 bytes, an item that does not fit is skipped and reported, and
 * the whole envelope never exceeds the budget.
 */
import { describe, expect, it } from 'vitest';
import { MIN_TRUNCATED_BYTES, utf8Length } from '../../../src/core/outgoing/envelope-budget.ts';
import { decodeEnvelope } from '../../../src/core/outgoing/envelope-decode.ts';
import { ENVELOPE_RENDERERS } from '../../../src/core/outgoing/envelope-renderer.ts';
import { wrapUntrusted } from '../../../src/core/outgoing/envelope.ts';
import { counterRandom } from './envelope-forgery-cases.ts';

const random = counterRandom(50);

/** The envelope of no item: its size is the frame every item is added to. */
function frameBytes(renderer: 'json' | 'quote'): number {
  const { text } = wrapUntrusted([''], { renderer, random });
  const emptyItem = renderer === 'json' ? '{"content":"","truncated":false}' : '> ';
  return Buffer.byteLength(text) - Buffer.byteLength(emptyItem) - 1;
}

describe('byte budget', { timeout: 120_000 }, () => {
  it.each(ENVELOPE_RENDERERS)(
    '%s: seed 000 regression, "a\\u2028" × 200 over 1,500 budgets: never a truncated item under 64 bytes',
    (renderer) => {
      const content = 'a\u2028'.repeat(200);
      const frame = frameBytes(renderer);
      const seen = new Set<string>();
      for (let budget = frame; budget <= frame + 1500; budget++) {
        const { text, items } = wrapUntrusted([content], { renderer, random, budget });
        const [item] = items;
        seen.add(item?.status as string);
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget);
        if (item?.status === 'truncated') {
          expect(item.deliveredBytes).toBeGreaterThanOrEqual(MIN_TRUNCATED_BYTES);
        }
        if (item?.status === 'skipped') expect(text).toBe('');
        if (renderer === 'json' && item?.status !== 'skipped') {
          const decoded = decodeEnvelope(text);
          const delivered = decoded.ok ? decoded.envelope.items[0] : undefined;
          expect(delivered?.truncated).toBe(item?.status === 'truncated');
          expect(content.startsWith(delivered?.content as string)).toBe(true);
        }
      }
      expect([...seen].sort()).toEqual(['skipped', 'truncated', 'whole']);
    },
  );

  it('skips an item whose fitting prefix would be under 64 bytes, then delivers a later one that fits', () => {
    const big = 'x'.repeat(1000);
    const frame = frameBytes('json');
    const small = 'small';
    // Room for the small item and 40 bytes more: too little for a 64-byte prefix of `big`.
    const smallLine = Buffer.byteLength(`{"content":"${small}","truncated":false}`) + 1;
    const { text, items } = wrapUntrusted([big, small], { random, budget: frame + smallLine + 40 });
    expect(items).toEqual([
      { index: 0, status: 'skipped', bytes: 1000 },
      { index: 1, status: 'whole', bytes: 5 },
    ]);
    const decoded = decodeEnvelope(text);
    expect(decoded.ok && decoded.envelope.items).toEqual([{ content: small, truncated: false }]);
  });

  it('truncates at a code point boundary, never inside a surrogate pair or a JSON escape', () => {
    const content = '🙂\u2028'.repeat(100);
    const frame = frameBytes('json');
    for (let budget = frame + 60; budget < frame + 400; budget++) {
      const { text, items } = wrapUntrusted([content], { random, budget });
      if (items[0]?.status !== 'truncated') continue;
      const decoded = decodeEnvelope(text);
      expect(decoded.ok).toBe(true);
      const prefix = decoded.ok ? (decoded.envelope.items[0]?.content as string) : '';
      expect(prefix).not.toMatch(/[\ud800-\udbff]$/);
      expect(content.startsWith(prefix)).toBe(true);
      expect(utf8Length(prefix)).toBe(items[0].deliveredBytes);
    }
  });

  it('returns no text and reports every item skipped when not even the frame fits', () => {
    const { text, items } = wrapUntrusted(['a', 'b'], { random, budget: 10 });
    expect(text).toBe('');
    expect(items.map((i) => i.status)).toEqual(['skipped', 'skipped']);
  });

  it('gives the same envelope as without a budget when everything fits', () => {
    const unbounded = wrapUntrusted(['a\u0085b', '你好'], { random });
    const bounded = wrapUntrusted(['a\u0085b', '你好'], {
      random,
      budget: Buffer.byteLength(unbounded.text),
    });
    expect(bounded.text).toBe(unbounded.text);
    expect(
      wrapUntrusted(['a\u0085b', '你好'], { random, budget: Buffer.byteLength(unbounded.text) - 1 })
        .items[1]?.status,
    ).toBe('skipped');
  });

  it('counts a lone surrogate as the 3 bytes of U+FFFD', () => {
    expect(utf8Length('\ud800a\u{1F600}é')).toBe(3 + 1 + 4 + 2);
  });

  it('refuses a negative or NaN budget', () => {
    expect(() => wrapUntrusted(['x'], { budget: -1 })).toThrow(RangeError);
    expect(() => wrapUntrusted(['x'], { budget: Number.NaN })).toThrow(RangeError);
  });
});
