/**
 * Issue 19 §3, per push: while no deferred rule's probe is live, the hold asks
 * all deferred rules at once whether any of their starts lies in the new units
 * (scanner.ts `quietProbes`) before asking each on its own. For any prose
 * around the values those rules wait for (SSNs, Mailchimp keys, e-mail
 * addresses, hex words), with hidden units in places and any token-sized
 * chunking, every push returns exactly what the slow path (each rule's probe
 * on its own) returns, and holds as much.
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import { probeShortcut } from '../../src/core/guard/scanner.ts';
import { proseOf, shortcutDifferential } from '../support/guard-steps.ts';

const word = fc.oneof(
  fc.stringMatching(/^[a-z]{1,9}$/),
  fc.stringMatching(/^[0-9a-f]{1,12}$/),
  fc.stringMatching(/^[0-9-]{1,12}$/),
);
const value = fc.oneof(
  fc.stringMatching(/^[0-9]{3}-[0-9]{2}-[0-9]{4}$/),
  fc.stringMatching(/^[0-9a-f]{32}-us[0-9]{1,2}$/),
  fc
    .tuple(fc.stringMatching(/^[a-z0-9.]{1,20}$/), fc.stringMatching(/^[a-z]{3,10}$/))
    .map(([local, host]) => `${local}@${host}-mail.org`),
);
const gap = fc.constantFrom(' ', ' ', ' ', '\n', ': ', '\u200B', '*', ' **');
const prose = proseOf(word, value, gap);
const sizes = fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 16 });

describe('deferred probes asked at once (issue 19 §3)', () => {
  shortcutDifferential('every push equals the slow path', probeShortcut, prose, sizes);
});
