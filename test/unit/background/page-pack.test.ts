/**
 * The background compiles the page's packs (compiledRulesFor, answered to the
 * bridge's `page-pack`): once per pack choice, again when the choice changes,
 * the built-in set when a custom pack does not compile; what it serialises
 * loads in the MAIN world without the compiler and guards the same.
 */
import { describe, expect, it } from 'vitest';
import { parseContentMessage } from '../../../src/background/message-shape.ts';
import { compiledRulesFor } from '../../../src/background/page-config.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { loadCompiledPack } from '../../../src/core/rules/load-compiled-pack.ts';
import { loadDeliveredBuiltTables } from '../../../src/content/load-built-tables.ts';
import type { CompiledPageRules } from '../../../src/protocol/settings-schema.ts';
import { githubPat } from '../cli/synthetic-secrets.ts';
import { sampleConfig } from '../page-channel/sample-page-config.ts';

const choice = {
  packs: ['secrets', 'pii', 'exfil', 'invisible', 'injection'],
  disabledRules: [],
  customPacks: [],
  allowedImageHosts: [],
};

/** The page's two policies: with them, the answer carries built tables (issue 19 §4). */
const policies = { incoming: sampleConfig.incoming, outgoing: sampleConfig.outgoing };

/** The pack as a page gets it: from the built tables when the answer has them, else the JSON. */
function pageRulesPack(compiled: CompiledPageRules) {
  if (compiled.built !== undefined) return loadDeliveredBuiltTables(compiled.built, {});
  return loadCompiledPack(structuredClone(compiled.pack));
}

function ruleIds(compiled: CompiledPageRules): string[] {
  return pageRulesPack(compiled).rules.map((rule) => rule.spec.id);
}

function redacts(pack: ReturnType<typeof loadCompiledPack>, text: string): string {
  const guard = new StreamGuard(pack);
  return guard.push(text).emit + guard.end().emit;
}

describe('compiledRulesFor', () => {
  it('serialises a pack that loads and guards, with the label pack', () => {
    const compiled = compiledRulesFor(choice);
    // Without the page's policies there are no built tables: the pack goes as JSON.
    expect(compiled.built).toBeUndefined();
    const pack = pageRulesPack(compiled);
    const secret = githubPat();
    expect(redacts(pack, `key ${secret} end`)).not.toContain(secret);
    expect(loadCompiledPack(compiled.labels.rules).rules.length).toBeGreaterThan(0);
    expect(compiled.labels.minProse).toBeGreaterThanOrEqual(1);
  });

  it("with the page's policies, sends the built tables instead of the pack's JSON", () => {
    const compiled = compiledRulesFor({ ...choice, ...policies });
    expect(compiled.pack).toBeUndefined();
    expect(compiled.built?.digest).toMatch(/^[0-9a-f]{8}$/);
    // What crosses runtime messaging: Chrome's is JSON.
    const crossed = JSON.parse(JSON.stringify(compiled)) as CompiledPageRules;
    const pack = pageRulesPack(crossed);
    expect(ruleIds(crossed)).toEqual(ruleIds(compiledRulesFor(choice)));
    const secret = githubPat();
    expect(redacts(pack, `key ${secret} end`)).not.toContain(secret);
  });

  it('compiles once per choice and again when it changes', () => {
    const first = compiledRulesFor({ ...choice, ...policies });
    expect(compiledRulesFor({ ...choice, ...policies }).built).toBe(first.built);
    const fewer = compiledRulesFor({ ...choice, ...policies, packs: ['secrets'] });
    expect(fewer.built).not.toEqual(first.built);
    expect(ruleIds(fewer).length).toBeLessThan(ruleIds(first).length);
  });

  it('falls back to the built-in set when a custom pack does not compile', () => {
    const all = ruleIds(compiledRulesFor({ ...choice, ...policies }));
    const broken = compiledRulesFor({
      ...choice,
      ...policies,
      packs: ['secrets'],
      customPacks: [{ name: 'x' }],
    });
    expect(ruleIds(broken)).toEqual(all);
  });
});

describe('page-pack message', () => {
  it('is a bridge message the background accepts, extra fields dropped', () => {
    expect(parseContentMessage({ to: 'background', type: 'page-pack', extra: 1 })).toEqual({
      to: 'background',
      type: 'page-pack',
    });
  });
});
