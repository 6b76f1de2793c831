/**
 * `csg replay` knows Z.ai, ChatGLM and Perplexity in a HAR (issue 20 §3): each
 * entry is placed by its request URL (WIRE-FORMATS-2.md §3.5, §4.1), guarded
 * (the fixtures' token redacted, nothing of it left), and `--compare` finds
 * every chunking equal to the whole body.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../support/wire-harness.ts';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const SITES = [
  {
    format: 'zai',
    url: 'https://chat.z.ai/api/v2/chat/completions?timestamp=1&requestId=r&user_id=u&signature_timestamp=1',
    file: 'zai/completions-secret-split.sse',
  },
  {
    format: 'chatglm',
    url: 'https://chatglm.cn/chatglm/backend-api/assistant/stream',
    file: 'chatglm/stream-secret-split.sse',
  },
  {
    format: 'perplexity',
    url: 'https://www.perplexity.ai/rest/sse/perplexity_ask',
    file: 'perplexity/ask-secret-split.sse',
  },
];

function harOf(sites: typeof SITES) {
  return {
    log: {
      version: '1.2',
      entries: sites.map((s) => ({
        request: { method: 'POST', url: s.url, headers: [] },
        response: {
          status: 200,
          headers: [{ name: 'content-type', value: 'text/event-stream' }],
          content: { mimeType: 'text/event-stream', text: fixture(s.file) },
        },
      })),
    },
  };
}

describe('csg replay: Z.ai, ChatGLM and Perplexity in a HAR', () => {
  const temp = new TempFiles();
  afterAll(() => temp.remove());
  const har = temp.writeJson('sites.har', harOf(SITES));

  it('places each entry by its URL and guards it', async () => {
    const run = await runCsg(['replay', har]);
    expect(run.code).toBe(0);
    expect(run.out).toContain('[redacted:github-pat]');
    expect(run.out).not.toMatch(/EXAMPLEexam/);
    expect(run.stderr).not.toMatch(/unguarded/);
  });

  it('--compare: every chunking gives the whole-body result, per format', async () => {
    const run = await runCsg(['replay', har, '--compare']);
    expect(run.code).toBe(0);
    for (const [i, site] of SITES.entries()) {
      expect(run.out).toMatch(new RegExp(`stream ${String(i)} ${site.format}: chunked = whole`));
    }
  });
});
