/**
 * The page's built tables (issue 19 §4): a rule whose data does not decode is
 * refused when it is used, every time, and the paced decode of the always-on
 * rules after setup runs past it rather than stopping the page's setup.
 */
import { describe, expect, it } from 'vitest';
import { compiledRulesFor } from '../../../src/background/page-config.ts';
import { BANK_FIELD, BANK_ROW } from '../../../src/core/rules/built-nfa-bank.ts';
import { dataDigest } from '../../../src/core/rules/data-digest.ts';
import { runToEnd } from '../../../src/core/guard/run-to-end.ts';
import { CompiledPackError } from '../../../src/core/rules/load-compiled-pack.ts';
import {
  decodeAlwaysOnSteps,
  loadDeliveredBuiltTables,
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
