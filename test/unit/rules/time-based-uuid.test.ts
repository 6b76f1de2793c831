import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runValidator } from '../../../src/core/rules/validators/index.ts';
import {
  looksLikePlaceholder,
  notPlaceholder,
} from '../../../src/core/rules/validators/not-placeholder.ts';
import { isTimeBasedUuid } from '../../../src/core/rules/validators/time-based-uuid.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const ctx = { allowedImageHosts: [] as string[] };

/** 100-ns ticks between 1582-10-15 and 1970-01-01 (RFC 9562 §5.1). */
const GREGORIAN_OFFSET_TICKS = 122_192_928_000_000_000n;

const hex = (n: bigint, digits: number): string => n.toString(16).padStart(digits, '0');

/** The 60-bit RFC 9562 timestamp of a Unix time in ms plus 0..9999 extra ticks. */
function ticksOf(ms: number, extraTicks: number): bigint {
  return BigInt(ms) * 10_000n + BigInt(extraTicks) + GREGORIAN_OFFSET_TICKS;
}

/** The variant `10` plus a 14-bit clock sequence, as the fourth group (§4.1, §5.1). */
const variantAndClockSeq = (clockSeq: number): string => hex(0x8000n | BigInt(clockSeq), 4);

/** A version 1 UUID (§5.1): time_low-time_mid-1time_high-variant+clock_seq-node. */
function v1(ticks: bigint, clockSeq: number, node: bigint): string {
  const low = ticks & 0xffff_ffffn;
  const mid = (ticks >> 32n) & 0xffffn;
  const high = (ticks >> 48n) & 0xfffn;
  return `${hex(low, 8)}-${hex(mid, 4)}-1${hex(high, 3)}-${variantAndClockSeq(clockSeq)}-${hex(node, 12)}`;
}

/** A version 6 UUID (§5.6): the same timestamp, most significant bits first. */
function v6(ticks: bigint, clockSeq: number, node: bigint): string {
  const high = ticks >> 28n;
  const mid = (ticks >> 12n) & 0xffffn;
  const low = ticks & 0xfffn;
  return `${hex(high, 8)}-${hex(mid, 4)}-6${hex(low, 3)}-${variantAndClockSeq(clockSeq)}-${hex(node, 12)}`;
}

/** A version 2 UUID (§5.2, DCE Security): v1 with time_low replaced by a local id. */
function v2(ticks: bigint, localId: number, clockSeq: number, node: bigint): string {
  const [, mid = '', versionAndHigh = '', ...rest] = v1(ticks, clockSeq, node).split('-');
  return [hex(BigInt(localId), 8), mid, `2${versionAndHigh.slice(1)}`, ...rest].join('-');
}

/** A version 4 UUID (§5.4) from 122 random bits. */
function v4(bits: bigint): string {
  const h = hex(bits, 31); // 124 bits as hex; the variant takes 2 of the 4th group's first digit
  const variant = (8 + (parseInt(h[12] ?? '0', 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(16, 19)}-${h.slice(19, 31)}`;
}

/**
 * Creation times inside the 1980..2100 window, a day away from its ends: a v2
 * UUID has no time_low (its date is only known to ~7 minutes), and the check
 * works in doubles, so the exact edge is not a promise.
 */
const DAY_MS = 86_400_000;
const msInWindow = fc.integer({
  min: Date.UTC(1980, 0, 1) + DAY_MS,
  max: Date.UTC(2100, 0, 1) - DAY_MS,
});
const extraTicks = fc.integer({ min: 0, max: 9_999 });
const clockSeq = fc.integer({ min: 0, max: 0x3fff });
const node = fc.bigInt({ min: 0n, max: (1n << 48n) - 1n });
const upper = fc.boolean();
const caseOf = (s: string, up: boolean): string => (up ? s.toUpperCase() : s);

describe('isTimeBasedUuid', () => {
  it.each([
    // Made with Python's uuid.uuid1() (one with a random node id) and its v6 reordering.
    '55824e14-ec6a-11f1-aa7f-1f2d3c4b5a69',
    '5582f2b8-ec6a-11f1-8e43-02fc00000001',
    '1f1ec6a5-5824-6e14-aa7f-1f2d3c4b5a69',
    '5582F2B8-EC6A-11F1-8E43-02FC00000001',
  ])('%s is a time-based UUID', (value) => {
    expect(isTimeBasedUuid(value)).toBe(true);
  });

  it.each([
    // Version 4 (random), as Heroku and legacy npm tokens are.
    '0463ae27-e521-4f91-be69-0ba2c171c831',
    // Version 1 digit, but the variant is not RFC 9562 (`c` = Microsoft): the version is undefined.
    '55824e14-ec6a-11f1-ca7f-1f2d3c4b5a69',
    // Version 1 digit, but time_high 0xf00 is the year ~5000: random hex in UUID shape.
    '55824e14-ec6a-1f00-aa7f-1f2d3c4b5a69',
    // Not exactly a UUID.
    '{55824e14-ec6a-11f1-aa7f-1f2d3c4b5a69}',
    'urn:uuid:55824e14-ec6a-11f1-aa7f-1f2d3c4b5a69',
    ' 55824e14-ec6a-11f1-aa7f-1f2d3c4b5a69',
    '55824e14ec6a11f1aa7f1f2d3c4b5a69',
    'api-55824e14-ec6a-11f1-aa7f-1f2d3c4b5a69',
  ])('%s is not', (value) => {
    expect(isTimeBasedUuid(value)).toBe(false);
  });

  it('recognises any v1, v2 or v6 UUID made between 1980 and 2100, in either case', () => {
    fc.assert(
      fc.property(
        msInWindow,
        extraTicks,
        clockSeq,
        node,
        fc.nat({ max: 0xffff_ffff }),
        upper,
        (ms, extra, seq, n, localId, up) => {
          const t = ticksOf(ms, extra);
          return [v1(t, seq, n), v2(t, localId, seq, n), v6(t, seq, n)].every((u) =>
            isTimeBasedUuid(caseOf(u, up)),
          );
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('does not exempt a UUID-shaped value whose date is outside 1980..2100', () => {
    const outside = fc.oneof(
      fc.integer({ min: -12_219_292_800_000, max: Date.UTC(1980, 0, 1) - DAY_MS }),
      fc.integer({ min: Date.UTC(2100, 0, 1) + DAY_MS, max: Date.UTC(5000, 0, 1) }),
    );
    fc.assert(
      fc.property(outside, extraTicks, clockSeq, node, (ms, extra, seq, n) => {
        const t = ticksOf(ms, extra);
        return !isTimeBasedUuid(v1(t, seq, n)) && !isTimeBasedUuid(v6(t, seq, n));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('never calls a v4 UUID time-based', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 124n) - 1n }), upper, (bits, up) => {
        return !isTimeBasedUuid(caseOf(v4(bits), up));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

describe('not-placeholder and time-based UUIDs', () => {
  it('rejects any v1 or v6 UUID, even without an entropy floor', () => {
    fc.assert(
      fc.property(msInWindow, extraTicks, clockSeq, node, (ms, extra, seq, n) => {
        const t = ticksOf(ms, extra);
        return !notPlaceholder(v1(t, seq, n)) && !notPlaceholder(v6(t, seq, n));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('judges any v4 UUID only by the placeholder check: the UUID rule never drops one', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 124n) - 1n }), (bits) => {
        const u = v4(bits);
        return notPlaceholder(u) === !looksLikePlaceholder(u);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('accepts random v4 UUIDs (legacy npm tokens, Heroku keys) at password-assignment strength', () => {
    for (const u of [
      '0463ae27-e521-4f91-be69-0ba2c171c831',
      '69bb707d-b009-49e1-b145-4840965d92fd',
      '4d454b5c-76e1-4e56-9f51-f49c5e567a1f',
    ]) {
      expect(notPlaceholder(u, 3)).toBe(true);
    }
  });

  it('applies to the part a rule validates, and only when the part is exactly the UUID', () => {
    const spec = {
      name: 'not-placeholder' as const,
      minEntropy: 3,
      part: '=[ \\t]*([^\\s]+)$',
    };
    expect(runValidator(spec, 'token=5582f2b8-ec6a-11f1-8e43-02fc00000001', ctx)).toEqual({
      ok: false,
    });
    expect(runValidator(spec, 'token=0463ae27-e521-4f91-be69-0ba2c171c831', ctx)).toEqual({
      ok: true,
    });
    // A v1 UUID inside a longer value (a prefix, a suffix) is not exempted.
    expect(runValidator(spec, 'token=tok-5582f2b8-ec6a-11f1-8e43-02fc00000001', ctx)).toEqual({
      ok: true,
    });
  });
});
