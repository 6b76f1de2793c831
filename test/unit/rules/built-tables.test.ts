/**
 * Issue 19 §2: the built-in pack's built structures as one binary file
 * (built-tables.ts), which the `csg` bundle loads instead of parsing the pack
 * and building its alphabet, start tables and keyword automata. A pack loaded
 * from it has exactly the tables the checked path builds (serialised pack and
 * warm tables), guards any text in any chunks exactly as that pack does, and
 * decodes a rule's data only when the rule first runs. A file whose layout is
 * wrong is refused with BuiltTablesError (the bundle then takes the checked
 * path; its digest rule is tested in test/unit/cli/built-tables-digest.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataDigest } from '../../../src/core/rules/data-digest.ts';
import { scanChunks, scanText } from '../../../src/core/guard/scan-text.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { builtinPackJson, getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import {
  BUILT_TABLES_VERSION,
  BuiltTablesError,
  builtTablesHead,
  decodeBuiltTables,
  encodeBuiltTables,
  loadBuiltTables,
} from '../../../src/core/rules/built-tables.ts';
import type { CompiledPack } from '../../../src/core/rules/compiled-pack.ts';
import { loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import { loadWarmTables } from '../../../src/core/rules/load-warm-tables.ts';
import { serialiseCompiledPack } from '../../../src/core/rules/serialised-pack.ts';
import { serialiseWarmTables } from '../../../src/core/rules/warm-tables.ts';
import {
  PROPERTY_RUNS,
  cut,
  cutsArbitrary,
  textArbitrary,
} from '../../support/text-arbitraries.ts';

// As scripts/build-cli.js builds them: the core pack, warmed for the default options.
const serialised = serialiseCompiledPack(getCorePack());
const packText = JSON.stringify(serialised);
const warmed = loadCompiledPack(JSON.parse(packText));
const warm = serialiseWarmTables(warmed, [{}]);
const file = encodeBuiltTables(
  serialised,
  warmed,
  warm.automata.map((a) => a.subset),
  dataDigest,
);

/** The checked path of the bundle: the serialised pack and its warm tables, every check run. */
const checked = (): CompiledPack =>
  loadWarmTables(JSON.parse(JSON.stringify(warm)), loadCompiledPack(JSON.parse(packText)));
const fromFile = (bytes: Uint8Array = file): CompiledPack =>
  loadBuiltTables(decodeBuiltTables(bytes, { digest: dataDigest }));

/** A copy of the file with its header rewritten by `edit`, the sections after it as they were. */
function withHeader(edit: (header: Record<string, unknown>) => void): Uint8Array {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const length = view.getUint32(8, true);
  const header = JSON.parse(
    Buffer.from(file.subarray(16, 16 + length)).toString('latin1'),
  ) as Record<string, unknown>;
  edit(header);
  const text = JSON.stringify(header).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  // Sections count from the first multiple of 8 after the header; the head ends where
  // the last section (the rules' data) begins.
  const base = (n: number) => Math.ceil((16 + n) / 8) * 8;
  const sections = file.subarray(base(length));
  const out = new Uint8Array(base(text.length) + sections.length);
  out.set(file.subarray(0, 16));
  const fixed = new DataView(out.buffer);
  fixed.setUint32(8, text.length, true);
  fixed.setUint32(12, view.getUint32(12, true) - base(length) + base(text.length), true);
  out.set(Buffer.from(text, 'latin1'), 16);
  out.set(sections, base(text.length));
  return out;
}

describe('built tables', () => {
  const reference = checked();
  const loaded = fromFile();
  const guardOf = (pack: CompiledPack) => {
    new StreamGuard(pack).push('');
    return pack;
  };

  it('hold the alphabet, start tables and keyword automata the checked path builds', () => {
    guardOf(reference);
    guardOf(loaded);
    const { alphabet } = loaded;
    expect(alphabet.classCount).toBe(reference.alphabet.classCount);
    expect([...alphabet.classOf]).toEqual([...reference.alphabet.classOf]);
    expect([...alphabet.representative]).toEqual([...reference.alphabet.representative]);
    expect([...alphabet.kind]).toEqual([...reference.alphabet.kind]);
    expect([...alphabet.intervalStart]).toEqual([...reference.alphabet.intervalStart]);
    expect(loaded.rules.map((r) => r.spec)).toEqual(reference.rules.map((r) => r.spec));
    reference.rules.forEach((rule, i) => {
      const mine = loaded.rules[i]!;
      expect(mine.maxLength).toBe(rule.maxLength);
      expect(mine.structuralMaxLength).toBe(rule.structuralMaxLength);
      if (rule.keyword) return;
      // Format 2: the always-on rules' automata come as sections, not JSON (issue 19 §4).
      const { nfa } = mine;
      for (const key of ['start', 'final', 'sets'] as const)
        expect(nfa[key]).toEqual(rule.nfa[key]);
      for (const key of [
        'setOf',
        'to',
        'epsStart',
        'epsTo',
        'condStart',
        'condTo',
        'condWhen',
      ] as const) {
        expect([...nfa[key]]).toEqual([...rule.nfa[key]]);
      }
      expect(mine.startClasses).toEqual(rule.startClasses);
      expect(mine.deferral ?? null).toEqual(rule.deferral ?? null);
    });
    expect(warm.automata.length).toBeGreaterThan(0);
    for (const { subset } of warm.automata) {
      const want = reference.keywordAutomaton(subset.map((i) => reference.rules[i]!));
      const got = loaded.keywordAutomaton(subset.map((i) => loaded.rules[i]!));
      expect(got).not.toBeNull();
      expect({ ...got! }).toEqual({ ...want! });
    }
  }, 60_000);

  it('guard any text in any chunks exactly as the checked path', () => {
    fc.assert(
      fc.property(textArbitrary(builtinPackJson()), cutsArbitrary, (text, cuts) => {
        const chunks = cut(text, cuts);
        expect(scanChunks(loaded, chunks)).toEqual(scanChunks(reference, chunks));
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 500) },
    );
  }, 120_000);

  it.each([
    ['another magic', (f: Uint8Array) => f.set([0x58], 0)],
    ['another format version', (f: Uint8Array) => f.set([BUILT_TABLES_VERSION + 1], 4)],
    ['a header longer than the file', (f: Uint8Array) => f.set([0xff, 0xff, 0xff, 0x7f], 8)],
  ])('refuse %s', (_, edit) => {
    const edited = file.slice();
    edit(edited);
    expect(() => decodeBuiltTables(edited, { digest: dataDigest })).toThrow(BuiltTablesError);
  });

  it("refuse a file cut short or grown: the rules' data must end it exactly", () => {
    expect(() => fromFile(file.slice(0, file.length - 1))).toThrow(BuiltTablesError);
    const grown = new Uint8Array(file.length + 8);
    grown.set(file);
    expect(() => fromFile(grown)).toThrow(BuiltTablesError);
  });

  it("find any change to the rules' data when a rule is first decoded, and refuse it", () => {
    const head = builtTablesHead(file)!;
    const example = builtinPackJson().rules.find((r) => r.examples.match.length > 0)!;
    const text = `x ${example.examples.match[0]} y`;
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const edited = file.slice();
        const i = head.length + (at % (file.length - head.length));
        edited[i] = (edited[i] as number) ^ flip;
        // The head is untouched: the bundle would load these tables.
        expect(dataDigest(builtTablesHead(edited)!)).toBe(dataDigest(head));
        const pack = fromFile(edited);
        expect(scanText(pack, 'hi\n')).toEqual(scanText(reference, 'hi\n'));
        const outcome = scanText(pack, text);
        expect(outcome.blocked).toBe(true);
        expect(outcome.events.map((e) => e.type)).toContain('error');
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 50) },
    );
  });

  it.each([
    [
      'a section of another type',
      (h: Record<string, unknown>) => {
        const sections = h.sections as [string, number, number][];
        sections[0]![0] = sections[0]![0] === 'u8' ? 'i32' : 'u8';
      },
    ],
    [
      'a section moved past the end',
      (h: Record<string, unknown>) => {
        const sections = h.sections as [string, number, number][];
        sections[sections.length - 1]![1] += 8;
      },
    ],
    [
      'rules of another kind',
      (h: Record<string, unknown>) => {
        const rules = h.rules as unknown[];
        const at = rules.findIndex((r) => r === null);
        rules[at] = { starts: -1, trigger: -1, breaker: -1 };
      },
    ],
    [
      'a subset outside the pack',
      (h: Record<string, unknown>) => {
        const automata = h.automata as { subset: number[] }[];
        automata[0]!.subset[0] = 100_000;
      },
    ],
  ])('refuse %s', (_, edit) => {
    expect(() => fromFile(withHeader(edit))).toThrow(BuiltTablesError);
  });

  it.each([
    ['an end state outside the automaton', (nfa: Record<string, number>) => (nfa.start = 1e6)],
    ['a distance section of another length', (nfa: Record<string, number>) => (nfa.dist = nfa.to!)],
    [
      'a set section that is not ranges',
      (nfa: Record<string, number>) => (nfa.ranges = nfa.setOf!),
    ],
  ])(
    "refuse an always-on rule's automaton with %s when it first runs: every scan fails closed",
    (_, edit) => {
      let id = '';
      const broken = withHeader((h) => {
        const rules = h.rules as ({ nfa: Record<string, number> } | null)[];
        const at = rules.findIndex((r) => r !== null);
        id = (h.specs as { spec: { id: string } }[])[at]!.spec.id;
        edit(rules[at]!.nfa);
      });
      const pack = fromFile(broken);
      // Loaded without decoding it; refused in the scan that first runs it.
      expect(scanText(pack, 'hi\n')).toEqual(scanText(reference, 'hi\n'));
      const example = builtinPackJson().rules.find((r) => r.id === id)!.examples.match[0]!;
      const outcome = scanText(pack, `x ${example} y`);
      expect(outcome.blocked).toBe(true);
      expect(outcome.events.map((e) => e.type)).toContain('error');
    },
  );

  it('decode a rule only when it runs; one with broken data fails its scan closed', () => {
    const broken = withHeader((h) => {
      const specs = h.specs as { text: [number, number] }[];
      // Every rule's text now starts one byte late: not JSON, found when a rule first runs.
      for (const spec of specs) spec.text[0] += 1;
    });
    const pack = fromFile(broken);
    // Loaded and used without reading any rule's data: plain text starts no rule.
    expect(scanText(pack, 'hi\n')).toEqual(scanText(reference, 'hi\n'));
    const example = builtinPackJson().rules.find((r) => r.examples.match.length > 0)!;
    const outcome = scanText(pack, `x ${example.examples.match[0]} y`);
    expect(outcome.blocked).toBe(true);
    expect(outcome.events.map((e) => e.type)).toContain('error');
  });
});
