import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RulePack } from '../../src/core/rules/rule.ts';

const dir = fileURLToPath(new URL('../../src/core/rules/packs/', import.meta.url));

/** Every pack shipped in src/core/rules/packs, as [file name, pack]. */
export function shippedPacks(): [string, RulePack][] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(dir + f, 'utf8')) as RulePack]);
}
