/**
 * `csg replay` on responses it cannot place (issue 20 §3): it names the
 * closest registered format and why it was refused (core/wire/closest-format.ts),
 * on stderr for a HAR entry (the entry is left as it is) and in the usage
 * error for a raw body, and never passes such a response as safe silently.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;
/** An OpenAI chat route answered with a JSON document that is no chat completion. */
const NOT_A_COMPLETION = '{"id":"x1","object":"chat.completion.v9","result":{"output":"hello"}}';
/** big-AGI's particles (WIRE-FORMATS-2.md §4.7) on a route that is not its procedure's. */
const PARTICLES = '{"json":[3,1,[[{"t":"hi"}]]]}\n{"json":[3,1,[[{"t":" there"}]]]}\n';

function entry(url: string, mimeType: string, text: string) {
  return {
    request: { method: 'POST', url, headers: [] },
    response: { status: 200, headers: [], content: { size: text.length, mimeType, text } },
  };
}

describe('csg replay: the closest format of what it cannot place', () => {
  it(
    'a HAR entry: listed as unguarded with its closest format and what was refused, left as it was',
    async () => {
      const har = {
        log: {
          entries: [
            entry(
              'https://api.example.com/v1/chat/completions',
              'application/json',
              NOT_A_COMPLETION,
            ),
            entry('https://agi.example.org/api/v2/generate', 'application/json', PARTICLES),
          ],
        },
      };
      const path = temp.writeJson('unplaced.har', har);
      const run = await runCsg(['replay', path]);
      expect(run.code).toBe(0);
      expect(run.stderr.split('\n')).toEqual([
        'csg: unguarded: POST https://api.example.com/v1/chat/completions (application/json); ' +
          'closest: openai-chat [openai-chat-stream] (URL matches its route; refused: content ' +
          'type application/json is not SSE (text/event-stream), none of 1 events carries ' +
          "text it reads; first event's keys: id, object, result)",
        'csg: unguarded: POST https://agi.example.org/api/v2/generate (application/json); ' +
          'closest: big-agi [big-agi] (content type application/json fits, 2 of 2 events ' +
          'carry text it reads; refused: URL is not one of its routes)',
        '',
      ]);
      expect(JSON.parse(run.out)).toEqual(har);
    },
    T,
  );

  it(
    'a raw body: the usage error names the closest format (exit 2)',
    async () => {
      const path = temp.write('particles.jsonl', PARTICLES);
      const run = await runCsg(['replay', path]);
      expect(run.code).toBe(2);
      expect(run.out).toBe('');
      expect(run.stderr).toBe(
        'csg: cannot recognise the capture format (closest: big-agi [big-agi] (content type ' +
          'application/x-ndjson fits, 2 of 2 events carry text it reads; refused: no URL to ' +
          'match its routes)); use --format\n',
      );
    },
    T,
  );
});
