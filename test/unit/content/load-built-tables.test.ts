/**
 * The page's built tables (issue 19 §4): a rule whose data does not decode is
 * refused when it is used, every time, and the paced decode of the always-on
 * rules after setup runs past it rather than stopping the page's setup.
 */
import { webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledRulesFor } from '../../../src/background/page-config.ts';
import { BANK_FIELD, BANK_ROW } from '../../../src/core/rules/built-nfa-bank.ts';
import { dataDigest } from '../../../src/core/rules/data-digest.ts';
import { runToEnd } from '../../../src/core/guard/run-to-end.ts';
import { CompiledPackError } from '../../../src/core/rules/load-compiled-pack.ts';
import { DEFAULT_INCOMING_POLICY } from '../../../src/background/default-settings.ts';
import { answerGuardOptions } from '../../../src/core/guard/page-guard-options.ts';
import { BUILTIN_PACK_NAMES } from '../../../src/core/rules/builtin-packs.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import type { CompiledPack } from '../../../src/core/rules/compiled-pack.ts';
import {
  type Sha256Digest,
  decodeAlwaysOnSteps,
  deliveredBuiltBytes,
  deliveredBuiltBytesAsync,
  loadDeliveredBuiltTables,
  startsOnAscii,
} from '../../../src/content/load-built-tables.ts';
import { sampleConfig } from '../page-channel/sample-page-config.ts';

describe('loadDeliveredBuiltTables', () => {
  it('loads every rule; one whose data was changed (digest sent along) is refused on use', () => {
    const built = compiledRulesFor(sampleConfig).built;
    if (built === undefined) throw new Error('no built tables');
    const good = loadDeliveredBuiltTables(built, {});
    runToEnd(decodeAlwaysOnSteps(good));
    for (const rule of good.rules) expect(rule.nfa).toBeDefined();

    // The last rule's automaton given no states in the bank's index (format 3,
    // built-nfa-bank.ts): it no longer decodes.
    const bytes = new Uint8Array(Buffer.from(built.tables, 'base64'));
    const headerLength = new DataView(bytes.buffer).getUint32(8, true);
    const header = JSON.parse(Buffer.from(bytes.subarray(16, 16 + headerLength)).toString()) as {
      sections: [string, number, number][];
      nfas: { index: number };
      specs: unknown[];
    };
    const index = header.sections[header.nfas.index]!;
    const at = Math.ceil((16 + headerLength) / 8) * 8 + index[1];
    const lastRow = (header.specs.length - 1) * BANK_ROW + BANK_FIELD.states;
    new DataView(bytes.buffer).setInt32(at + 4 * lastRow, 0, true);
    const tables = Buffer.from(bytes).toString('base64');
    const pack = loadDeliveredBuiltTables({ tables, digest: dataDigest(bytes) }, {});
    expect(() => runToEnd(decodeAlwaysOnSteps(pack))).not.toThrow();
    const last = pack.rules[pack.rules.length - 1];
    expect(() => last?.nfa).toThrow(CompiledPackError);
    expect(() => last?.nfa).toThrow(CompiledPackError);
    expect(pack.rules[0]?.nfa).toBeDefined();
  });
});

/** WebCrypto as a page with it has it (Node's is the same API). */
const webCrypto: Sha256Digest = (bytes) => webcrypto.subtle.digest('SHA-256', bytes);

/** How a check ended: the bytes it let through, or refused. */
async function verdict(check: () => Uint8Array | Promise<Uint8Array>) {
  try {
    return Buffer.from(await check()).toString('base64');
  } catch (error) {
    expect((error as Error).name).toBe('BuiltTablesError');
    return 'refused';
  }
}

describe('deliveredBuiltBytesAsync (the SHA-256 by WebCrypto)', () => {
  const built = compiledRulesFor(sampleConfig).built!;
  const file = new Uint8Array(Buffer.from(built.tables, 'base64'));

  it('lets through exactly what the FNV-1a check lets through, for any changed byte', async () => {
    // The slow path (FNV-1a on the page's main thread) against the fast one; either
    // refuses every change of one byte, and both pass the tables as built.
    const change = fc.option(
      fc.tuple(fc.nat({ max: file.length - 1 }), fc.integer({ min: 1, max: 255 })),
      { freq: 8 },
    );
    await fc.assert(
      fc.asyncProperty(change, async (edit) => {
        const bytes = file.slice();
        if (edit !== null) bytes[edit[0]] = (bytes[edit[0]] as number) ^ edit[1];
        const sent = { ...built, tables: Buffer.from(bytes).toString('base64') };
        const slow = await verdict(() => deliveredBuiltBytes(sent));
        expect(await verdict(() => deliveredBuiltBytesAsync(sent, webCrypto))).toBe(slow);
        expect(slow === 'refused').toBe(edit !== null);
      }),
      { numRuns: 40, examples: [[[file.length - 1, 1]], [[0, 0x80]], [null]] },
    );
  });

  it('decides by the SHA-256 when WebCrypto is there, by FNV-1a only without it', async () => {
    const wrongSha = { ...built, sha256: '0'.repeat(64) };
    await expect(deliveredBuiltBytesAsync(wrongSha, webCrypto)).rejects.toThrow(/not as/);
    // No WebCrypto (an insecure context): the FNV-1a digest, as before.
    expect(await verdict(() => deliveredBuiltBytesAsync(wrongSha, null))).not.toBe('refused');
    const shaOnly = { tables: built.tables, sha256: built.sha256 };
    expect(await verdict(() => deliveredBuiltBytesAsync(shaOnly, webCrypto))).not.toBe('refused');
    await expect(deliveredBuiltBytesAsync(shaOnly, null)).rejects.toThrow(/not as/);
    const failing: Sha256Digest = () => Promise.reject(new Error('no digest'));
    await expect(deliveredBuiltBytesAsync(built, failing)).rejects.toThrow(/digested/);
    for (const sha256 of [42, 'A'.repeat(64), '0'.repeat(63)]) {
      // Not a digest: the FNV-1a one decides.
      const odd = { ...built, sha256, digest: '00000000' };
      await expect(deliveredBuiltBytesAsync(odd, webCrypto)).rejects.toThrow(/not as/);
    }
  });
});

/** `built` with the automata of rules `indexes` given no states (they no longer decode). */
function withRulesBroken(built: { tables: string }, indexes: readonly number[]) {
  const bytes = new Uint8Array(Buffer.from(built.tables, 'base64'));
  const view = new DataView(bytes.buffer);
  const headerLength = view.getUint32(8, true);
  const header = JSON.parse(Buffer.from(bytes.subarray(16, 16 + headerLength)).toString()) as {
    sections: [string, number, number][];
    nfas: { index: number };
  };
  const index = header.sections[header.nfas.index]!;
  const at = Math.ceil((16 + headerLength) / 8) * 8 + index[1];
  for (const i of indexes) view.setInt32(at + 4 * (i * BANK_ROW + BANK_FIELD.states), 0, true);
  return { tables: Buffer.from(bytes).toString('base64'), digest: dataDigest(bytes) };
}

/** What a guard makes of `chunks`: its output and events, or that it failed. */
function guarded(pack: CompiledPack, chunks: readonly string[]) {
  try {
    const guard = new StreamGuard(pack, answerGuardOptions(DEFAULT_INCOMING_POLICY));
    const results = [...chunks.map((chunk) => guard.push(chunk)), guard.end()];
    return JSON.stringify(results.map((r) => [r.emit, r.blocked, r.events]));
  } catch (error) {
    return `failed: ${(error as Error).name}`;
  }
}

describe('decodeAlwaysOnSteps', () => {
  const config = { ...sampleConfig, packs: [...BUILTIN_PACK_NAMES], disabledRules: [] };
  const built = compiledRulesFor(config).built!;
  const good = loadDeliveredBuiltTables(built, {});
  runToEnd(decodeAlwaysOnSteps(good));
  const lazy = good.rules.filter((r) => !r.keyword && !startsOnAscii(r, good.alphabet));
  // Every rule left lazy is broken: a stream that runs one fails closed.
  const broken = loadDeliveredBuiltTables(
    withRulesBroken(
      built,
      lazy.map((r) => r.index),
    ),
    {},
  );
  runToEnd(decodeAlwaysOnSteps(broken));

  it('leaves lazy only the always-on rules that invisible or other non-ASCII units start', () => {
    expect(lazy.map((r) => r.id).sort()).toEqual([
      'bidi-controls',
      'unicode-tag-chars',
      'variation-selector-on-ascii',
      'variation-selector-smuggling',
      'zero-width-chars',
      'zero-width-joiner-in-latin',
    ]);
  });

  it('a stream of ASCII text never runs a rule it left lazy, in any chunks', () => {
    // As a guard on the whole pack: were a lazy rule one that ASCII starts, its broken
    // data would fail this stream (CompiledPackError) where the good pack's does not.
    const ascii = fc.string({
      unit: fc.integer({ min: 0, max: 0x7f }).map((u) => String.fromCharCode(u)),
      maxLength: 200,
    });
    const prose = fc.array(
      fc.oneof(
        ascii,
        fc.constantFrom(
          ' me@example.org ',
          ' 4111 1111 1111 1111 ',
          ' +14155552671 ',
          '[x]: https://a.example/?q=1 ',
          '<https://a.example/x?q=1>',
          ' GB82 WEST 1234 5698 7654 32 ',
          '# System:',
          ' sk-',
          '123-45-6789',
        ),
      ),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(prose, fc.integer({ min: 1, max: 40 }), (parts, size) => {
        const text = parts.join('');
        const chunks: string[] = [];
        for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
        expect(guarded(broken, chunks)).toBe(guarded(good, chunks));
      }),
      { numRuns: 200 },
    );
  });

  it('a stream with such a unit decodes the rule when it first runs it', () => {
    for (const unit of ['\uFE0F\uFE0F', '\u200B', '\u202E', '\u{E0041}']) {
      const chunks = [`love it ${unit} ok`];
      expect(guarded(broken, chunks)).toMatch(/^failed|"type":"error"/);
      expect(guarded(good, chunks)).not.toMatch(/^failed|"type":"error"/);
    }
  });
});
