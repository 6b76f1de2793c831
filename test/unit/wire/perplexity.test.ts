/**
 * Perplexity (WIRE-FORMATS-2.md §4.1, WIRE-FORMATS.md §5.5, MED), read back the
 * way gpt4free and Chat2API read it: the `ask_text` block's `markdown_block`
 * patches applied to a chunk list (`replace` at `""` resets it, `add
 * /chunks/n` appends), the text the chunks joined. The shared harness covers
 * byte identity, any split and the block ending (test/fixtures/wire/perplexity).
 */
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { perplexity } from '../../../src/core/wire/adapters/perplexity.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';
import { fixture } from '../../support/wire-harness.ts';

const pack = getCorePack();
const secret = fixture('perplexity/ask-secret-split.sse');

interface Patch {
  op: string;
  path: string;
  value: unknown;
}

function readPerplexity(body: string) {
  let chunks: string[] = [];
  let ended = false;
  createParser({
    onEvent: (m) => {
      if (m.event === 'end_of_stream') {
        ended = true;
        return;
      }
      const json = JSON.parse(m.data) as {
        blocks?: { intended_usage?: string; diff_block?: { patches: Patch[] } }[];
      };
      for (const block of json.blocks ?? []) {
        if (block.intended_usage !== 'ask_text' || block.diff_block === undefined) continue;
        for (const p of block.diff_block.patches) {
          if (p.path === '') {
            const v = p.value as { chunks: string[] } | string;
            chunks = typeof v === 'string' ? [v] : [...v.chunks];
          } else chunks.push(p.value as string);
        }
      }
    },
  }).feed(body);
  return { text: chunks.join(''), ended };
}

const diff = (patches: Patch[]) =>
  `event: message\ndata: ${JSON.stringify({
    blocks: [{ intended_usage: 'ask_text', diff_block: { field: 'markdown_block', patches } }],
  })}\n\n`;

describe('Perplexity (§4.1)', () => {
  it('guards the answer assembled from its patches', () => {
    const original = readPerplexity(secret);
    const replay = replayBody(perplexity, pack, [secret]);
    const guarded = readPerplexity(replay.output);
    expect(guarded.text).toBe(scanText(pack, original.text).output);
    expect(guarded.text).toContain('[redacted:github-pat]');
    expect(guarded.ended).toBe(true);
    expect(replay.output).not.toMatch(/EXAMPLEexam|collector\.example\.net\/p/);
    expect(replay.issues).toEqual([]);
  });

  it('a replace at "" resets the text: the new version is guarded whole, reported as a rewind', () => {
    const token = 'ghp_' + 'EXAMPLEexampleEXAMPLEexample01234567';
    const body =
      diff([{ op: 'replace', path: '', value: { chunks: ['Draft: ', token.slice(0, 10)] } }]) +
      diff([{ op: 'replace', path: '', value: { chunks: ['Final: ', token.slice(0, 20)] } }]) +
      diff([{ op: 'add', path: '/chunks/2', value: token.slice(20) + ' ok' }]);
    const replay = replayBody(perplexity, pack, [body]);
    const text = readPerplexity(replay.output).text;
    expect(text).toBe('Final: [redacted:github-pat] ok');
    expect(replay.issues.map((i) => i.kind)).toEqual(['snapshot-rewound']);
  });

  it('a markdown patch of a shape the document does not show is reported', () => {
    const body = diff([{ op: 'move', path: '/chunks/0', value: 'x' }]);
    const replay = replayBody(perplexity, pack, [body]);
    expect(replay.output).toBe(body);
    expect(replay.issues.map((i) => i.kind)).toEqual(['unrecognised-frame']);
  });

  it('its send carries the text twice, dsl_query and query_str, both guarded as new', () => {
    const adapter = detectRequestAdapter({
      url: 'https://www.perplexity.ai/rest/sse/perplexity_ask',
      method: 'POST',
      contentType: 'application/json',
    });
    expect(adapter?.name).toBe('perplexity');
    const body = JSON.stringify({ params: { version: '2.18', dsl_query: 'q' }, query_str: 'q' });
    expect(adapter?.locate(body).map((t) => [t.path, t.part])).toEqual([
      [['params', 'dsl_query'], 'new'],
      [['query_str'], 'new'],
    ]);
    expect(
      JSON.parse(
        adapter?.rewrite(body, [
          { path: ['params', 'dsl_query'], value: 'r' },
          { path: ['query_str'], value: 'r' },
        ]) ?? '',
      ),
    ).toEqual({ params: { version: '2.18', dsl_query: 'r' }, query_str: 'r' });
  });
});
