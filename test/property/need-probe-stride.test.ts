/**
 * Issue 19 §3: a scanner asks its deferred rules' probes for what to retain
 * (`needFrom`) only once per NEED_PROBE_STRIDE units, and keeps more text in
 * between. Keeping less would lose the start of a value whose trigger has not
 * come yet: `alice.smith.jones@…` in token-sized pushes would release
 * `alice.smith.` before the redaction (seen with a deliberately wrong floor).
 * For any prose around e-mail addresses with long local parts and any small
 * chunking, the output and events equal those of the whole text pushed at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GuardOptions, StreamGuard } from '../../src/core/guard/stream-guard.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { PROPERTY_RUNS, splitBySizes } from '../support/text-arbitraries.ts';

const pack = getCorePack();

function run(chunks: readonly string[], options: GuardOptions): { out: string; events: unknown[] } {
  const guard = new StreamGuard(pack, options);
  let out = '';
  const events: unknown[] = [];
  for (const chunk of chunks) {
    const r = guard.push(chunk);
    out += r.emit;
    events.push(...r.events);
  }
  const r = guard.end();
  return { out: out + r.emit, events: [...events, ...r.events] };
}

const word = fc.stringMatching(/^[a-z]{1,9}$/);
/** A local part longer than the stride in places, so its start lies far behind the `@`. */
const localPart = fc
  .array(fc.stringMatching(/^[a-z0-9]{1,12}$/), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join('.'));
const address = fc
  .tuple(localPart, fc.stringMatching(/^[a-z]{3,10}$/), fc.constantFrom('org', 'net', 'de'))
  .map(([local, host, tld]) => `${local}@${host}-mail.${tld}`);
const prose = fc
  .array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: address }), {
    minLength: 1,
    maxLength: 30,
  })
  .map((words) => words.join(' '));
/** Token-sized pushes: each chunk 1 to 8 units long. */
const sizes = fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 16 });

describe('needFrom asks the probes once per stride (issue 19 §3)', () => {
  it.each([
    ['as shipped', {}],
    ['with PII redacted', { policy: { pii: 'redact' } }],
  ] as [string, GuardOptions][])(
    'small pushes give the whole text result (%s)',
    { timeout: 300_000 },
    (_how, options) => {
      fc.assert(
        fc.property(prose, sizes, (text, lengths) => {
          expect(run(splitBySizes(text, lengths), options)).toEqual(run([text], options));
        }),
        { numRuns: Math.ceil(PROPERTY_RUNS / 2) },
      );
    },
  );
});
