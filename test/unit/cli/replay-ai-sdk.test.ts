/**
 * `csg replay` on the Vercel AI SDK's streams (issue 20 §3; WIRE-FORMATS-2.md
 * §1): raw captures of the UI message stream and the data stream are
 * recognised from their content, chunked equals whole, and in a HAR the text
 * stream (which has no marker of its own) is known by its request's shape.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;
const fixture = (name: string): string =>
  new URL(`../../fixtures/wire/ai-sdk/${name}`, import.meta.url).pathname;

describe('csg replay: AI SDK streams', () => {
  it(
    'recognises the UI message stream and the data stream; chunked = whole',
    async () => {
      const ui = await runCsg(['replay', fixture('ui-stream-secret-split.sse'), '--compare']);
      expect(ui.out).toBe('stream 0 ai-sdk-ui: chunked = whole (3 events)\n');
      expect(ui.code).toBe(0);
      const data = await runCsg(['replay', fixture('data-stream-secret-split.txt'), '--compare']);
      expect(data.out).toBe('stream 0 ai-sdk-data: chunked = whole (3 events)\n');
    },
    T,
  );

  it(
    'in a HAR, a plain-text answer to an AI SDK request is the text stream; a marker header names the UI stream',
    async () => {
      const text = readFileSync(fixture('text-stream-secret.txt'), 'utf8');
      const sse = 'data: {"type":"custom-app"}\n\ndata: [DONE]\n\n';
      const body = JSON.stringify({
        id: 'c1',
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        trigger: 'submit-message',
      });
      const entry = (mimeType: string, content: string, headers: object[]) => ({
        request: {
          method: 'POST',
          url: 'https://app.example/api/chat',
          postData: { mimeType: 'application/json', text: body },
        },
        response: { status: 200, headers, content: { mimeType, text: content } },
      });
      const har = JSON.stringify({
        log: {
          entries: [
            entry('text/plain', text, [
              { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
            ]),
            entry('text/event-stream', sse, [
              { name: 'X-Vercel-AI-UI-Message-Stream', value: 'v1' },
            ]),
          ],
        },
      });
      const path = temp.write('ai-sdk.har', har);
      const run = await runCsg(['replay', path, '--compare']);
      expect(run.out).toBe(
        'stream 0 ai-sdk-text: chunked = whole (2 events)\nstream 1 ai-sdk-ui: chunked = whole (0 events)\n',
      );
      const replayed = await runCsg(['replay', path]);
      const out = JSON.parse(replayed.out) as {
        log: { entries: { response: { content: { text: string } } }[] };
      };
      expect(out.log.entries[0]?.response.content.text).toBe(scanText(getCorePack(), text).output);
    },
    T,
  );
});
