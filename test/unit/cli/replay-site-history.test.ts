/**
 * `csg replay` on the new sites' history loads (issue 20 §1 and §3): a HAR of
 * HuggingChat's conversation document (WIRE-FORMATS-2.md §4.6), Z.ai's chat
 * (§3.5, Open WebUI's shape) and Grok's `load-responses` (§4.3, path only; the
 * generic adapter, JSON only) is replayed with each saved answer guarded and
 * no entry reported unguarded; `--compare` says chunked = whole for each.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../support/wire-harness.ts';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;

const entries = [
  {
    url: 'https://huggingface.co/chat/api/conversation/6750f0a1b2c3d4e5f6a7b8c9',
    body: fixture('huggingchat/history-secret.json'),
    format: 'huggingchat',
  },
  {
    url: 'https://chat.z.ai/api/v1/chats/3c9e4f2a-7b1d-4e8a-9f60-1a2b3c4d5e6f',
    body: fixture('zai/chat-history-secret.json'),
    format: 'open-webui',
  },
  {
    url: 'https://grok.com/rest/app-chat/conversations/c-1/load-responses',
    body: fixture('generic/grok-load-responses.json'),
    format: 'generic',
  },
];

const har = () =>
  temp.writeJson('site-history.har', {
    log: {
      entries: entries.map((e) => ({
        request: { method: 'GET', url: e.url },
        response: {
          status: 200,
          headers: [{ name: 'Content-Type', value: 'application/json' }],
          content: { size: e.body.length, mimeType: 'application/json', text: e.body },
        },
      })),
    },
  });

describe('csg replay: history loads of the new sites', () => {
  it(
    'guards each saved answer in a HAR, none unguarded',
    async () => {
      const run = await runCsg(['replay', har()]);
      expect(run.code).toBe(0);
      expect(run.stderr).not.toMatch(/unguarded/);
      const out = JSON.parse(run.out) as {
        log: { entries: { response: { content: { text: string } } }[] };
      };
      out.log.entries.forEach((entry) => {
        const text = entry.response.content.text;
        expect(text).toContain('[redacted:github-pat]');
        expect(text).not.toContain('collector.example.net/p');
      });
    },
    T,
  );

  it(
    '--compare: chunked = whole, under each format',
    async () => {
      const run = await runCsg(['replay', har(), '--compare']);
      expect(run.code).toBe(0);
      const lines = run.out.trim().split('\n');
      expect(lines).toHaveLength(entries.length);
      lines.forEach((line, i) => {
        expect(line).toMatch(new RegExp(`^stream ${i} ${entries[i]!.format}: chunked = whole`));
      });
    },
    T,
  );
});
