/**
 * `tsx bench/long-task-steps.ts [runs]`: the page's paced set-up steps in Node, cold
 * (issue 19 §4, guard long tasks 0): the background's answer built as page-config.ts
 * builds it (default policies, built-in packs), then in one fresh child process per
 * run the steps page-guard-config.ts paces on the page (`setupSteps` with the built
 * tables, the first guard of each policy, the always-on rules' decode), each timed
 * on its own. Prints per run the step count and the longest steps, and the median of
 * the longest. A page's task can hold one step past the pacer's 10 ms slice, so the
 * longest step is what bounds a guard long task; Node's figures are below a loaded
 * renderer's (traced page loads: `bench/page-profile.ts stream`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_INCOMING_POLICY,
  DEFAULT_OUTGOING_POLICY,
} from '../src/background/default-settings.ts';
import { compiledRulesFor } from '../src/background/page-config.ts';
import { createPageGuardConfig } from '../src/content/page-guard-config.ts';
import type { PageConfig } from '../src/protocol/settings-schema.ts';
import { median } from './median.ts';

const CHILD = process.env['LONG_TASK_STEPS_CONFIG'];

/** One cold run: every step of `applyInSteps` timed (the pause between steps marks them). */
async function child(path: string): Promise<void> {
  const config = JSON.parse(readFileSync(path, 'utf8')) as PageConfig;
  const steps: number[] = [];
  let at = performance.now();
  const pause = () => {
    const now = performance.now();
    steps.push(now - at);
    at = now;
    return undefined;
  };
  await createPageGuardConfig().applyInSteps(config, pause);
  steps.push(performance.now() - at);
  console.log(JSON.stringify(steps));
}

function parent(runs: number): void {
  const base = {
    version: 1,
    incoming: { ...DEFAULT_INCOMING_POLICY },
    outgoing: { ...DEFAULT_OUTGOING_POLICY },
    allowedImageHosts: [],
    packs: ['secrets', 'pii', 'exfil', 'invisible', 'injection'],
    disabledRules: [],
    customPacks: [],
    envelopeRenderer: 'json',
    autoEnvelopeMinChars: 0,
  } as unknown as PageConfig;
  const compiled = compiledRulesFor({ ...base, incoming: base.incoming, outgoing: base.outgoing });
  if (compiled.built === undefined) throw new Error('the background built no tables');
  const path = join(mkdtempSync(join(tmpdir(), 'csg-steps-')), 'config.json');
  // The answer crosses runtime messaging as JSON: the child reads it as the page gets it.
  writeFileSync(path, JSON.stringify({ ...base, compiled }));
  const longest: number[] = [];
  for (let run = 0; run < runs; run++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename], {
      env: { ...process.env, LONG_TASK_STEPS_CONFIG: path },
      encoding: 'utf8',
    });
    const steps = JSON.parse(out.trim().split('\n').pop() ?? '[]') as number[];
    const top = steps
      .map((ms, i) => ({ ms, i }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 4);
    longest.push(top[0]?.ms ?? 0);
    const sum = steps.reduce((a, b) => a + b, 0);
    console.log(
      `run ${run + 1}: ${steps.length} steps, ${sum.toFixed(1)} ms; longest ` +
        top.map(({ ms, i }) => `#${i} ${ms.toFixed(1)}`).join(', '),
    );
  }
  console.log(`longest step, median of ${runs}: ${median(longest).toFixed(1)} ms`);
}

if (CHILD !== undefined) await child(CHILD);
else parent(Number(process.argv[2] ?? '5'));
