/**
 * A survey of test/property/secret-redacted-whole.test.ts: runs the same draws
 * without stopping at the first failure and counts the failures by kind, rule,
 * context and transformation, with one example of each transformation's
 * failures. For working on the engine; the property test is the check.
 *
 *   npx tsx test/support/redacted-whole-survey.ts [runs=2000] [seed=1]
 */
import fc from 'fast-check';
import { builtinPack, caseDrawArbitrary, caseOf, runCase } from './redacted-whole.ts';

const runs = Number(process.argv[2] ?? 2000);
const seed = Number(process.argv[3] ?? 1);

function bump(tally: Map<string, number>, key: string): void {
  tally.set(key, (tally.get(key) ?? 0) + 1);
}

function show(title: string, tally: Map<string, number>, top = 25): void {
  const rows = [...tally].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(`\n${title}`);
  for (const [key, n] of rows) console.log(`  ${String(n).padStart(6)}  ${key}`);
}

builtinPack();
const started = performance.now();
let ran = 0;
let skipped = 0;
let failed = 0;
const byKind = new Map<string, number>();
const byRule = new Map<string, number>();
const byContext = new Map<string, number>();
const byTransformation = new Map<string, number>();
const examples = new Map<string, string>();
for (const draw of fc.sample(caseDrawArbitrary, { numRuns: runs, seed })) {
  const sample = caseOf(draw);
  if (sample === undefined) {
    skipped++;
    continue;
  }
  ran++;
  const outcome = runCase(sample);
  if (outcome.failure === undefined) continue;
  failed++;
  bump(byKind, outcome.failureKind ?? '?');
  bump(byRule, sample.rule.id);
  bump(byContext, sample.context);
  bump(byTransformation, draw.transformation);
  if (!examples.has(draw.transformation)) examples.set(draw.transformation, outcome.failure);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`${runs} draws: ${ran} cases, ${skipped} skipped, ${failed} failed (${seconds} s)`);
show('by kind', byKind);
show('by transformation', byTransformation);
show('by context', byContext);
show('by rule (top 25)', byRule);
for (const [kind, failure] of examples) console.log(`\nfirst failure with ${kind}:\n${failure}`);
