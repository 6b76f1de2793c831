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
import { githubPat } from '../cli/synthetic-secrets.ts';

const choice = {
  packs: ['secrets', 'pii', 'exfil', 'invisible', 'injection'],
  disabledRules: [],
  customPacks: [],
  allowedImageHosts: [],
};

function redacts(pack: ReturnType<typeof loadCompiledPack>, text: string): string {
  const guard = new StreamGuard(pack);
  return guard.push(text).emit + guard.end().emit;
}

describe('compiledRulesFor', () => {
  it('serialises a pack that loads and guards, with the label pack', () => {
    const compiled = compiledRulesFor(choice);
    const pack = loadCompiledPack(structuredClone(compiled.pack));
    const secret = githubPat();
    expect(redacts(pack, `key ${secret} end`)).not.toContain(secret);
    expect(loadCompiledPack(compiled.labels.rules).rules.length).toBeGreaterThan(0);
    expect(compiled.labels.minProse).toBeGreaterThanOrEqual(1);
  });

  it('compiles once per choice and again when it changes', () => {
    const first = compiledRulesFor(choice);
    expect(compiledRulesFor({ ...choice }).pack).toBe(first.pack);
    const fewer = compiledRulesFor({ ...choice, packs: ['secrets'] });
    expect(fewer.pack).not.toBe(first.pack);
    expect(fewer.pack.rules.length).toBeLessThan(first.pack.rules.length);
  });

  it('falls back to the built-in set when a custom pack does not compile', () => {
    const all = compiledRulesFor(choice).pack.rules.map((r) => r.spec.id);
    const broken = compiledRulesFor({
      ...choice,
      packs: ['secrets'],
      customPacks: [{ name: 'x' }],
    });
    expect(broken.pack.rules.map((r) => r.spec.id)).toEqual(all);
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
