import { afterAll, describe, expect, it } from 'vitest';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

describe('csg rules check: keyword prefilter', () => {
  it('warns about a rule without keywords that starts almost anywhere, with its cost', async () => {
    const pack = {
      name: 'wide',
      version: '1.0.0',
      rules: [
        {
          id: 'any-word',
          kind: 'custom',
          description: 'any lower-case word',
          pattern: '[a-z]{3,12}',
          action: 'flag',
          replacement: '***',
          examples: { match: ['hello'], noMatch: ['42'] },
        },
      ],
    };
    const run = await runCsg(['rules', 'check', temp.writeJson('wide.json', pack)]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /^warning: rule "any-word": field "keywords": no keywords and the pattern can start at \d+% .*expected cost \d+\.\d automaton steps per input character/,
    );
    expect(run.out).toMatch(/\nok: 1 rules\n/);
  }, 60_000);
});
