/**
 * Time-based UUIDs are identifiers, not credentials (issue 6).
 *
 * RFC 9562 defines three time-based layouts: version 1 (§5.1: 60-bit Gregorian
 * timestamp, 14-bit clock sequence, 48-bit node id, usually a MAC address),
 * version 2 (§5.2: DCE Security, v1 with the low time bits replaced by a local
 * user or group id) and version 6 (§5.6: v1 with the timestamp reordered for
 * sorting). Apart from a few clock-sequence bits, everything in them is a time
 * or a host address: they are guessable, and §8 says UUIDs "MUST NOT be used as
 * security capabilities". Services that do issue UUID credentials use version 4
 * (§5.4: 122 random bits): Heroku (`heroku authorizations:create` prints a v4
 * token in its Platform API quick start) and legacy npm tokens. A bare v1/v2/v6
 * UUID in `token = …` is a record id, a request id or a sample from a UUID
 * generator, so the `not-placeholder` validator rejects it; a v4 UUID is kept.
 *
 * Only a value that is *exactly* a UUID counts, and only when it is a real
 * RFC 9562 time-based UUID:
 * - the variant bits are `10` (first hex digit of the fourth group 8, 9, a or
 *   b), because the version field is only defined for that variant (§4.1, §4.2);
 * - the timestamp it encodes falls between 1980 and 2100, i.e. some generator
 *   made it. Many vendor tokens are 128 random bits merely printed in the
 *   8-4-4-4-12 shape; about 1 in 21 of those has a "time-based" version and
 *   variant by chance, but only about 1 in 650 also carries a plausible date,
 *   so the check stays fail-closed for them.
 */

/** 8-4-4-4-12 hex digits, nothing around them; group 3 starts with the version digit. */
const UUID =
  /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f])([0-9a-f]{3})-([89ab])[0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Milliseconds from the Gregorian epoch (1582-10-15, RFC 9562 §5.1) to the Unix epoch. */
const GREGORIAN_TO_UNIX_MS = 12_219_292_800_000;
const TICKS_PER_MS = 10_000;
const EARLIEST_MS = Date.UTC(1980, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);

/**
 * The creation time (Unix milliseconds) of a v1, v2 or v6 UUID, from its
 * hex groups. Double precision loses the lowest bits of the 60-bit count,
 * far below a millisecond, which does not matter for a plausibility window.
 */
function timestampMs(version: string, g1: string, g2: string, g3rest: string): number {
  const a = parseInt(g1, 16);
  const b = parseInt(g2, 16);
  const c = parseInt(g3rest, 16);
  // v1/v2 (§5.1, §5.2): time_low (32) | time_mid (16) | time_high (12), low bits first.
  // v6 (§5.6): time_high (32) | time_mid (16) | time_low (12), high bits first.
  const ticks = version === '6' ? a * 2 ** 28 + b * 2 ** 12 + c : c * 2 ** 48 + b * 2 ** 32 + a;
  return ticks / TICKS_PER_MS - GREGORIAN_TO_UNIX_MS;
}

/** True when `value` is exactly an RFC 9562 version 1, 2 or 6 UUID with a plausible timestamp. */
export function isTimeBasedUuid(value: string): boolean {
  const m = UUID.exec(value);
  if (m === null) return false;
  const [, g1 = '', g2 = '', version = '', g3rest = ''] = m;
  if (version !== '1' && version !== '2' && version !== '6') return false;
  const ms = timestampMs(version, g1, g2, g3rest);
  return ms >= EARLIEST_MS && ms < LATEST_MS;
}
