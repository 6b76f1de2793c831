/**
 * The opt-in per-rule profile (scan-profile.ts, `npm run bench -- --profile`,
 * issue 19 §3): it counts thread starts, DFA steps and validator calls per rule,
 * and a profiled guard gives exactly the output and events of a plain one.
 */
import { describe, expect, it } from 'vitest';
import { ScanProfile } from '../../../src/core/guard/scan-profile.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import type { RuleSpec } from '../../../src/core/rules/rule.ts';

function guarded(guard: StreamGuard, chunks: readonly string[]) {
  const out: string[] = [];
  const events: unknown[] = [];
  for (const chunk of chunks) {
    const r = guard.push(chunk);
    out.push(r.emit);
    events.push(...r.events);
  }
  const r = guard.end();
  out.push(r.emit);
  events.push(...r.events);
  return { output: out.join(''), events };
}

function split(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function rule(id: string, pattern: string, match: string, keywords?: string[]): RuleSpec {
  const spec: RuleSpec = {
    id,
    kind: 'custom',
    description: id,
    pattern,
    action: 'redact',
    replacement: '***',
    examples: { match: [match], noMatch: ['!!!'] },
  };
  if (keywords !== undefined) spec.keywords = keywords;
  return spec;
}

const TEXT = [
  'Write to ana.silva@example.org or call +1 415 555 0132 before noon.',
  'OPENAI_API_KEY=sk-proj-4fJ9kQ2mZ8xR1tV6bN3cW7yH5pL0aS2dF4gK8jU1eI6oP9rT',
  'See [the docs](https://docs.example.org/start?ref=chat) and AKIAIOSFODNN7EXAMPLE.',
  'Plain prose with nothing to see, 42 lines, version 2.4.1, done.',
].join('\n');

describe('scan profile', () => {
  it('changes no verdict: output and events equal a plain guard, in any chunking', () => {
    const pack = getCorePack();
    for (const size of [1, 3, 4, 17, 4096]) {
      const plain = guarded(new StreamGuard(pack), split(TEXT, size));
      const profile = new ScanProfile(() => performance.now());
      const counted = guarded(new StreamGuard(pack, { profile }), split(TEXT, size));
      expect(plain.events.length).toBeGreaterThan(0);
      expect(counted, `chunks of ${size}`).toEqual(plain);
      expect(profile.entries().length).toBeGreaterThan(0);
    }
  });

  it('counts starts, steps and validator calls per rule', () => {
    const pack = compilePack({
      name: 'p',
      version: '1',
      rules: [
        rule('lower-word', '[a-z]{3,12}', 'hello'),
        rule('keyed', 'ZZ-[0-9]{2}', 'ZZ-12', ['ZZ-']),
      ],
    });
    const profile = new ScanProfile();
    const text = 'ab ZZ-12 cd ZZ-7 ef';
    guarded(new StreamGuard(pack, { profile }), split(text, 2));
    const costs = new Map(profile.entries());
    const keyed = costs.get('keyed');
    const word = costs.get('lower-word');
    // The keyword rule starts only where its keyword ends: twice.
    expect(keyed?.spawns).toBe(2);
    expect(keyed?.steps).toBeGreaterThan(0);
    // The always-on rule starts at every lower-case letter that can begin it.
    expect(word?.spawns).toBeGreaterThanOrEqual(3);
    expect(word?.steps).toBeGreaterThanOrEqual(word?.spawns ?? 0);
    // No validator and no clock: calls counted, no time.
    expect(keyed?.validateTime).toBe(0);
  });

  it('counts validator calls with their time when given a clock', () => {
    const pack = getCorePack();
    const profile = new ScanProfile(() => performance.now());
    guarded(new StreamGuard(pack, { profile }), [TEXT]);
    const validated = profile.entries().filter(([, c]) => c.validations > 0);
    expect(validated.length).toBeGreaterThan(0);
    for (const [id, c] of validated) expect(c.validateTime, id).toBeGreaterThanOrEqual(0);
  });
});
