/**
 * The serialised pack crosses a channel, so the loader checks it: malformed
 * data is refused with a CompiledPackError naming the place, never another
 * exception, and never a pack that runs on inconsistent data. A keyword rule's
 * automaton is checked when it is first needed, not at load
 * (load-compiled-pack.ts `ruleAutomaton`): `refusal` asks for every rule's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { CompiledPackError, loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import {
  type SerialisedPack,
  serialiseCompiledPack,
} from '../../../src/core/rules/serialised-pack.ts';
import { engineTestPack } from '../../support/engine-test-pack.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const goodText = JSON.stringify(serialiseCompiledPack(compilePack(engineTestPack)));
const good = (): SerialisedPack => JSON.parse(goodText) as SerialisedPack;

function refusal(data: unknown): CompiledPackError {
  try {
    for (const rule of loadCompiledPack(data).rules) void rule.dfa;
  } catch (error) {
    expect(error).toBeInstanceOf(CompiledPackError);
    return error as CompiledPackError;
  }
  throw new Error('the pack was loaded');
}

type Edit = (p: SerialisedPack) => void;

const cases: [string, Edit, string][] = [
  ['wrong format', (p) => ((p as { format: string }).format = 'other'), 'pack.format'],
  ['newer format version', (p) => (p.formatVersion = 2), 'pack.formatVersion'],
  ['no rules', (p) => (p.rules = []), 'pack.rules'],
  ['name not a string', (p) => ((p as { name: unknown }).name = 3), 'pack.name'],
  [
    'unknown kind',
    (p) => ((p.rules[0]!.spec as { kind: string }).kind = 'x'),
    'pack.rules[0].spec.kind',
  ],
  [
    'unknown action',
    (p) => ((p.rules[1]!.spec as { action: string }).action = 'x'),
    'pack.rules[1].spec.action',
  ],
  ['empty keyword', (p) => (p.rules[0]!.spec.keywords = ['']), 'pack.rules[0].spec.keywords'],
  ['duplicate id', (p) => (p.rules[1]!.spec.id = p.rules[0]!.spec.id), 'pack.rules[1].spec.id'],
  [
    'unknown validator',
    (p) => ((p.rules[3]!.spec.validator as { name: string }).name = 'crc'),
    'pack.rules[3].spec.validator.name',
  ],
  [
    'bad validator part',
    (p) => (p.rules[3]!.spec.validator!.part = '(['),
    'pack.rules[3].spec.validator.part',
  ],
  [
    'start outside the automaton',
    (p) => (p.rules[0]!.nfa.start = p.rules[0]!.nfa.states),
    'pack.rules[0].nfa.start',
  ],
  ['too many states', (p) => (p.rules[0]!.nfa.states = 10_000_000), 'pack.rules[0].nfa.states'],
  [
    'unsorted set',
    (p) => (p.rules[0]!.nfa.sets[0] = [50, 60, 10, 20]),
    'pack.rules[0].nfa.sets[0]',
  ],
  [
    'set beyond UTF-16',
    (p) => (p.rules[0]!.nfa.sets[0] = [0, 0x10000]),
    'pack.rules[0].nfa.sets[0]',
  ],
  ['adjacent ranges', (p) => (p.rules[0]!.nfa.sets[0] = [1, 2, 3, 4]), 'pack.rules[0].nfa.sets[0]'],
  ['empty set', (p) => (p.rules[0]!.nfa.sets[0] = []), 'pack.rules[0].nfa.sets[0]'],
  [
    'set index out of range',
    (p) => (p.rules[0]!.nfa.setOf = [99, p.rules[0]!.nfa.states]),
    'pack.rules[0].nfa.setOf',
  ],
  [
    'run lengths too short',
    (p) => (p.rules[0]!.nfa.epsCount = [0, 1]),
    'pack.rules[0].nfa.epsCount',
  ],
  ['odd run list', (p) => (p.rules[0]!.nfa.toDelta = [1]), 'pack.rules[0].nfa.toDelta'],
  [
    'edge target outside',
    (p) => (p.rules[0]!.nfa.epsDelta[0] = p.rules[0]!.nfa.states * 2),
    'pack.rules[0].nfa.epsDelta',
  ],
  ['non-integer', (p) => (p.rules[0]!.nfa.toDelta[0] = 0.5), 'pack.rules[0].nfa.toDelta[0]'],
  [
    'wrong longest match',
    (p) => {
      // Consistent with maxLength, which is checked at load: the automaton contradicts both.
      p.rules[0]!.structuralMaxLength = 3;
      p.rules[0]!.maxLength = 3;
    },
    'pack.rules[0].structuralMaxLength',
  ],
  [
    'unbounded claim',
    (p) => {
      p.rules[0]!.structuralMaxLength = null;
      p.rules[0]!.spec.maxLength = p.rules[0]!.maxLength;
    },
    'pack.rules[0].structuralMaxLength',
  ],
  ['wrong maxLength', (p) => (p.rules[0]!.maxLength += 1), 'pack.rules[0].maxLength'],
  [
    'unbounded without maxLength',
    (p) => (p.rules[0]!.structuralMaxLength = null),
    'pack.rules[0].maxLength',
  ],
  ['unknown condition', (p) => (p.rules[0]!.nfa.condWhen = [9, 99]), 'pack.rules[0].nfa.condWhen'],
];

describe('loadCompiledPack refuses malformed data', () => {
  it('loads the unmodified data', () => {
    expect(loadCompiledPack(good()).rules.length).toBe(engineTestPack.rules.length);
  });

  it.each(cases)('%s', (_what, edit, path) => {
    const data = good();
    edit(data);
    const error = refusal(data);
    expect(error.path.startsWith(path)).toBe(true);
  });

  it("checks a keyword rule's automaton when a scan first needs it, and fails that scan closed", () => {
    const data = good();
    const pem = data.rules.findIndex((r) => r.spec.id === 'pem');
    data.rules[pem]!.nfa.epsDelta[0] = data.rules[pem]!.nfa.states * 2;
    const pack = loadCompiledPack(data);
    // Texts without the rule's keyword never need its automaton: guarded as before.
    const plain = 'x tok_abcd1234 y call 555-1234';
    expect(scanText(pack, plain).output).toBe(scanText(compilePack(engineTestPack), plain).output);
    // Its keyword: the automaton is decoded, found malformed, and the scan fails closed.
    for (let i = 0; i < 2; i++) {
      const outcome = scanText(pack, 'a -----BEGIN KEY-----QUJD-----END KEY----- b');
      expect(outcome.blocked).toBe(true);
      expect(outcome.events.some((e) => e.type === 'error' && e.message.includes('epsDelta'))).toBe(
        true,
      );
    }
    expect(() => pack.rules[pem]!.dfa).toThrow(CompiledPackError);
  });

  it('fails closed when a text ends inside the keyword of a rule whose automaton is malformed', () => {
    const data = good();
    const pem = data.rules.findIndex((r) => r.spec.id === 'pem');
    data.rules[pem]!.nfa.epsDelta[0] = data.rules[pem]!.nfa.states * 2;
    // The hold asks whether the partial keyword can still begin a match: the rule is decoded.
    const guard = new StreamGuard(loadCompiledPack(data), {});
    const result = guard.push('released? -----BEGIN KE');
    expect(guard.isBlocked).toBe(true);
    expect(result.events.some((e) => e.type === 'error')).toBe(true);
    expect(result.emit).toBe('');
  });

  it("refuses at load an always-on rule's malformed automaton", () => {
    const data = good();
    const digits = data.rules.findIndex((r) => r.spec.keywords === undefined);
    data.rules[digits]!.nfa.epsDelta[0] = data.rules[digits]!.nfa.states * 2;
    expect(() => loadCompiledPack(data)).toThrow(CompiledPackError);
  });

  it("with deferAlwaysOn (the csg bundle's own pack), checks it when a scan first needs it", () => {
    const data = good();
    const digits = data.rules.findIndex((r) => r.spec.keywords === undefined);
    data.rules[digits]!.nfa.epsDelta[0] = data.rules[digits]!.nfa.states * 2;
    const pack = loadCompiledPack(data, {}, { deferAlwaysOn: true });
    // An always-on rule runs from the first unit: the first guard decodes it (its start
    // classes, without warm tables) and is refused, so nothing is ever released unchecked.
    expect(() => scanText(pack, 'call 555-1234')).toThrow(CompiledPackError);
    expect(() => pack.rules[digits]!.dfa).toThrow(CompiledPackError);
    // Well-formed data gives the pack loadCompiledPack gives without the option.
    const text = 'x tok_abcd1234 y call 555-1234';
    expect(scanText(loadCompiledPack(good(), {}, { deferAlwaysOn: true }), text)).toEqual(
      scanText(loadCompiledPack(good()), text),
    );
  });

  it.each([null, 3, 'pack', [], {}])('non-pack value %j', (value) => {
    refusal(value);
  });

  it(
    'any single corrupted number: refused with a typed error, or a pack that still runs',
    { timeout: 120_000 },
    () => {
      const base = good();
      // Every number in the data, by path, so the property can corrupt any one of them.
      const paths: (string | number)[][] = [];
      const walk = (value: unknown, path: (string | number)[]) => {
        if (typeof value === 'number') paths.push(path);
        else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
        else if (typeof value === 'object' && value !== null) {
          for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
        }
      };
      walk(base, []);
      fc.assert(
        fc.property(
          fc.nat({ max: paths.length - 1 }),
          fc.oneof(fc.integer({ min: -70_000, max: 70_000 }), fc.constantFrom(0.5, NaN, -1, 1e12)),
          (which, replacement) => {
            const data = good() as unknown as Record<string | number, unknown>;
            const path = paths[which]!;
            let target = data;
            for (const key of path.slice(0, -1)) target = target[key] as typeof target;
            target[path[path.length - 1]!] = replacement;
            let pack;
            try {
              pack = loadCompiledPack(data);
            } catch (error) {
              expect(error).toBeInstanceOf(CompiledPackError);
              return;
            }
            // Accepted: consistent enough to run; a run ends normally or fails closed inside the guard.
            expect(typeof scanText(pack, 'x tok_abcd1234 y call 555-1234 STOP42').output).toBe(
              'string',
            );
          },
        ),
        { numRuns: Math.min(PROPERTY_RUNS, 1000) },
      );
    },
  );
});
