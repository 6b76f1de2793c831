/**
 * The harness every registered wire adapter passes from the fixtures in its
 * folder (issue 20 §0; DESIGN.md §3.1, §3.6): byte identity when nothing
 * matches, any split of the wire bytes equal to the single-chunk result, and a
 * block that ends the answer the way the provider ends a refused one. A
 * meta-test fails when a registered adapter has no fixture case.
 */
import { existsSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectAdapter, wireAdapters } from '../../../src/core/wire/adapter-registry.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { byteStringOf } from '../../../src/core/wire/byte-string.ts';
import { type WireAdapter, readsBytes } from '../../../src/core/wire/wire-event.ts';
import {
  type AdapterCase,
  FIXTURE_ROOT,
  adapterCases,
  blockAllPack,
  emptyPack,
  fixtureFolders,
  listedFiles,
  manifestPath,
} from '../../support/adapter-cases.ts';
import { splitBytes, throughTransform, wireBytes, wireText } from '../../support/wire-harness.ts';
import { cutFractions } from '../../support/text-arbitraries.ts';

const core = getCorePack();
const empty = emptyPack();
const blockAll = blockAllPack();
const cases = adapterCases();
const cuts = cutFractions(24);
/** The machine is shared: the properties get room beyond vitest's 5 s default. */
const PROPERTY_TIMEOUT = 60_000;

function adapterOf(c: AdapterCase): WireAdapter {
  const adapter = wireAdapters.find((a) => a.id === c.adapter);
  if (adapter === undefined) throw new Error(`${c.folder}/${c.file}: no adapter ${c.adapter}`);
  return adapter;
}

describe('every registered adapter has fixtures', () => {
  it('each fixture folder has a manifest listing every file in it', () => {
    for (const folder of fixtureFolders()) {
      expect(existsSync(manifestPath(folder)), `${folder}/cases.json`).toBe(true);
      const listed = listedFiles(folder);
      const files = readdirSync(`${FIXTURE_ROOT}${folder}`).filter((f) => f !== 'cases.json');
      expect([...listed].sort(), folder).toEqual(files.sort());
    }
  });

  it('each registered adapter has a case whose text the core pack changes', () => {
    const guarded = new Set(cases.filter((c) => c.guarded).map((c) => c.adapter));
    const missing = wireAdapters.map((a) => a.id).filter((id) => !guarded.has(id));
    expect(missing).toEqual([]);
  });

  it('each case names a registered adapter and says how a block ends', () => {
    for (const c of cases) {
      expect(() => adapterOf(c)).not.toThrow();
      if (c.guarded) expect(c.block, `${c.folder}/${c.file}`).toBeDefined();
    }
  });
});

describe.each(cases.map((c) => [`${c.adapter}: ${c.folder}/${c.file}`, c] as const))(
  '%s',
  (_name, c) => {
    const adapter = adapterOf(c);
    // What the rewriter reads: the file's UTF-8 text, or its bytes one unit each.
    const body = readsBytes(adapter) ? byteStringOf(c.bytes) : c.body;

    it(`with no rules the page gets the server's bytes (${c.source})`, () => {
      const replay = replayBody(adapter, empty, [body]);
      expect(replay.output).toBe(body);
      expect(replay.blocked).toBe(false);
    });

    if (c.guarded) {
      it('the core pack changes its text and reports what it found', () => {
        const replay = replayBody(adapter, core, [body]);
        expect(replay.output).not.toBe(body);
        expect(replay.events.length).toBeGreaterThan(0);
      });
    } else {
      it('nothing matches: byte identity and no wire issue', () => {
        const replay = replayBody(adapter, core, [body]);
        expect(replay.output).toBe(body);
        expect(replay.events).toEqual([]);
        expect(replay.issues).toEqual([]);
      });
    }

    if (c.probe !== undefined) {
      const probe = c.probe;
      it('is detected as its adapter from URL, content type and the body head', () => {
        const head = c.body.slice(0, 1024);
        expect(detectAdapter({ ...probe, head })?.id).toBe(c.adapter);
      });
    }

    it(
      'for any split of the wire bytes, the page receives the single-chunk result',
      async () => {
        const bytes = wireBytes(adapter, body);
        const expected = replayBody(adapter, core, [body]).output;
        await fc.assert(
          fc.asyncProperty(cuts, async (at) => {
            const out = await throughTransform(adapter, core, splitBytes(bytes, at));
            expect(wireText(adapter, out)).toBe(expected);
          }),
          { numRuns: 40 },
        );
      },
      PROPERTY_TIMEOUT,
    );

    const block = c.block;
    if (c.guarded && block !== undefined) {
      it(
        'a block ends the answer the way the provider ends a refused one, for any split',
        async () => {
          const replay = replayBody(adapter, blockAll, [body]);
          expect(replay.blocked).toBe(true);
          if ('endsWith' in block) expect(replay.output.endsWith(block.endsWith)).toBe(true);
          else expect(() => JSON.parse(replay.output) as unknown).not.toThrow();
          const bytes = wireBytes(adapter, body);
          await fc.assert(
            fc.asyncProperty(cuts, async (at) => {
              const out = await throughTransform(adapter, blockAll, splitBytes(bytes, at));
              expect(wireText(adapter, out)).toBe(replay.output);
            }),
            { numRuns: 20 },
          );
        },
        PROPERTY_TIMEOUT,
      );
    }
  },
);
