/**
 * A restarted guard (stream-guard.ts `restart`, issue 19 §5) holds the state of a new
 * one, field by field: `restart` resets each stream field by hand, so a field added to
 * the guard, its scanners, view or input later and left out of `restart` would carry
 * one message's state into the next. reused-guard.test.ts compares outputs; this
 * compares the objects themselves, for any text, any chunking and any policy, so it
 * fails on a forgotten field even before an output shows it.
 *
 * What may differ is what a guard keeps on purpose for the rules it was made for:
 * caches filled on first use (`KEPT_CACHES`) and the capacity of the shared bigram
 * pass's arrays (their length; what they hold is unread: `count` is reset).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GuardOptions, StreamGuard } from '../../src/core/guard/stream-guard.ts';
import { builtinPackJson, getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';

/** Per-rule caches of a scanner, filled on first use and valid for every stream. */
const KEPT_CACHES = new Set(['dfas', 'secondUnits', 'anySlotClasses']);
/** The shared bigram pass's grown arrays (capacity, read only below `count`). */
const GROWN_ARRAYS = new Set(['positions', 'marks']);

/** Paths where `a` and `b` differ, functions ignored (closures bound to each guard). */
function differences(a: unknown, b: unknown, path: string, out: string[], seen: Set<unknown>) {
  if (typeof a === 'function' && typeof b === 'function') return;
  if (Object.is(a, b)) return;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    out.push(path);
    return;
  }
  if (seen.has(a)) return;
  seen.add(a);
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b)) out.push(path);
    else if (!GROWN_ARRAYS.has(path.slice(path.lastIndexOf('.') + 1))) {
      const x = a as unknown as ArrayLike<number>;
      const y = b as unknown as ArrayLike<number>;
      if (x.length !== y.length || Array.from(x).some((v, i) => v !== y[i])) out.push(path);
    }
    return;
  }
  if (a instanceof Map || b instanceof Map || a instanceof Set || b instanceof Set) {
    const entries = (m: object) => [...(m as Map<unknown, unknown>).entries()];
    differences(entries(a), entries(b), `${path}()`, out, seen);
    return;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    if (KEPT_CACHES.has(key)) continue;
    differences(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}.${key}`,
      out,
      seen,
    );
  }
}

const OPTIONS: [string, GuardOptions][] = [
  ['as shipped', {}],
  ['with PII redacted', { policy: { pii: 'redact' } }],
  ['secrets and PII blocked', { policy: { secret: 'block', pii: 'block' } }],
];

describe('a restarted guard holds a new guard’s state (issue 19 §5)', () => {
  const pack = getCorePack();
  const texts = textArbitrary(builtinPackJson());

  it.each(OPTIONS)(
    'field by field, after any stream (%s)',
    { timeout: 300_000 },
    (_how, options) => {
      fc.assert(
        fc.property(texts, cutsArbitrary, fc.boolean(), (text, cuts, ended) => {
          const used = new StreamGuard(pack, options);
          for (const chunk of cut(text, cuts)) used.push(chunk);
          // A guard that did not end is never restarted (spare-guards.ts gives back ended ones).
          if (!ended) {
            expect(used.restart()).toBe(false);
            return;
          }
          used.end();
          expect(used.restart()).toBe(true);
          const out: string[] = [];
          differences(used, new StreamGuard(pack, options), 'guard', out, new Set());
          expect(out).toEqual([]);
        }),
        { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
      );
    },
  );
});
