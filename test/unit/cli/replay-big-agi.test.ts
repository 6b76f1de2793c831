/**
 * `csg replay` on big-AGI's answer stream (issue 20 §3; WIRE-FORMATS-2.md
 * §4.7): a raw capture with its URL, and a HAR entry known by its route,
 * replayed whole and over every chunking with the same result.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;
const CAPTURE = new URL(
  '../../fixtures/wire/big-agi/chat-generate-secret-split.jsonl',
  import.meta.url,
).pathname;
const URL_OF = 'https://agi.example.org/api/edge/aix.chatGenerateContent?batch=1';

describe('csg replay: big-AGI', () => {
  it(
    'a raw capture with its URL: chunked = whole, and the token redacted in the lines',
    async () => {
      const compare = await runCsg(['replay', CAPTURE, '--url', URL_OF, '--compare']);
      expect(compare.out).toBe('stream 0 big-agi: chunked = whole (4 events)\n');
      expect(compare.code).toBe(0);
      const run = await runCsg(['replay', CAPTURE, '--url', URL_OF]);
      expect(run.code).toBe(0);
      expect(run.out).toContain('[redacted:github-pat]');
      expect(run.out).not.toContain('EXAMPLEexam');
      for (const line of run.out.split('\n').filter(Boolean))
        expect(() => JSON.parse(line)).not.toThrow();
    },
    T,
  );

  it(
    'a HAR entry is known by its route (application/json) and guarded',
    async () => {
      const text = readFileSync(CAPTURE, 'utf8');
      const har = {
        log: {
          entries: [
            {
              request: { method: 'POST', url: URL_OF, headers: [] },
              response: {
                status: 200,
                headers: [],
                content: { size: text.length, mimeType: 'application/json', text },
              },
            },
          ],
        },
      };
      const path = temp.writeJson('big-agi.har', har);
      const run = await runCsg(['replay', path, '--compare']);
      expect(run.stderr).toBe('');
      expect(run.out).toBe('stream 0 big-agi: chunked = whole (4 events)\n');
    },
    T,
  );
});
