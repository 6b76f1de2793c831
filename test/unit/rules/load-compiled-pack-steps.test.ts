/**
 * Loading a serialised pack in steps (for a page's main thread) yields between
 * rules, returns the same pack as the one-call load, and still refuses
 * malformed data, with the same error, before returning anything.
 */
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { builtinPackJson } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import type { CompiledPack } from '../../../src/core/rules/compiled-pack.ts';
import {
  CompiledPackError,
  loadCompiledPack,
  loadCompiledPackSteps,
} from '../../../src/core/rules/load-compiled-pack.ts';
import { serialiseCompiledPack } from '../../../src/core/rules/serialised-pack.ts';

const fresh = compilePack(builtinPackJson());
const serialised = (): { rules: { maxLength: number }[] } =>
  JSON.parse(JSON.stringify(serialiseCompiledPack(fresh))) as { rules: { maxLength: number }[] };

function runSteps(data: unknown): { pack: CompiledPack; yields: number } {
  const steps = loadCompiledPackSteps(data);
  let yields = 0;
  for (;;) {
    const step = steps.next();
    if (step.done === true) return { pack: step.value, yields };
    yields++;
  }
}

describe('loadCompiledPackSteps', () => {
  it('yields several times on the built-in packs and returns what loadCompiledPack does', () => {
    const { pack, yields } = runSteps(serialised());
    const once = loadCompiledPack(serialised());
    expect(yields).toBeGreaterThan(2);
    expect(pack.rules.map((r) => r.id)).toEqual(once.rules.map((r) => r.id));
    pack.rules.forEach((rule, i) => {
      expect(rule.maxLength).toBe(once.rules[i]!.maxLength);
      expect(rule.startClasses).toEqual(once.rules[i]!.startClasses);
    });
    expect(pack.alphabet.classOf).toEqual(once.alphabet.classOf);
    const text = 'key AKIAABCDEFGHIJKLMNOP and ghp_' + 'a1B2'.repeat(9) + ' end';
    expect(scanText(pack, text)).toEqual(scanText(once, text));
  });

  it('refuses a pack whose last rule is malformed, after yielding, with the same error', () => {
    const data = serialised();
    const last = data.rules[data.rules.length - 1]!;
    last.maxLength += 1;
    const steps = loadCompiledPackSteps(data);
    let yields = 0;
    let error: unknown;
    try {
      while (steps.next().done !== true) yields++;
    } catch (e) {
      error = e;
    }
    expect(yields).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(CompiledPackError);
    expect(() => loadCompiledPack(data)).toThrow((error as Error).message);
  });
});
