/**
 * DESIGN.md §3.1 for the generic structural adapter (issue 18 §1): for any
 * text, cut into any pieces and put in any of the framings the adapter reads,
 * any split of the wire bytes gives the page the single-chunk result (bytes
 * and events), and what was released after each network chunk is a prefix of
 * it. The bytes go through streaming UTF-8 decoding, as in the page.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { builtinPackSources } from '../../src/core/rules/builtin-packs.ts';
import { genericAdapter } from '../../src/core/wire/adapters/structural.ts';
import { StreamRewriter } from '../../src/core/wire/stream-rewriter.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';
import { splitBytes } from '../support/wire-harness.ts';

const pack = getCorePack();
const secrets = builtinPackSources.find((p) => p.name === 'secrets') ?? builtinPackSources[0]!;

/** The pieces of a text as an unknown wire format would carry them. */
const FRAMINGS: Record<string, (pieces: string[]) => string> = {
  'SSE, JSON deltas after padding and a status event': (pieces) =>
    `: ${'-'.repeat(600)}\n\ndata: {"status":"connected"}\n\n` +
    pieces.map((p) => `data: {"id":"r1","d":{"t":${JSON.stringify(p)}}}\n\n`).join('') +
    'data: [DONE]\n\n',
  'NDJSON deltas': (pieces) =>
    pieces.map((p) => `{"type":"token","token":${JSON.stringify(p)}}\n`).join(''),
  'NDJSON growing snapshots': (pieces) =>
    pieces
      .map((_, i) => `{"answer":${JSON.stringify(pieces.slice(0, i + 1).join(''))}}\r\n`)
      .join(''),
  'one JSON document': (pieces) =>
    JSON.stringify({ parts: pieces.map((text) => ({ text })), done: true }, null, 1),
  'prefixed lines': (pieces) => pieces.map((p) => `0:${JSON.stringify(p)}\n`).join('') + 'e:{}\n',
  'SSE data that is not JSON': (pieces) =>
    pieces.map((p) => `event: text\ndata: ${p.replace(/[\r\n]/g, ' ')}\n\n`).join(''),
  'plain text': (pieces) => pieces.join(''),
};

interface Run {
  output: string;
  events: string[];
  emits: string[];
}

function run(chunks: Uint8Array[]): Run {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const events: string[] = [];
  const rewriter = new StreamRewriter(genericAdapter, pack, {
    onGuardEvents: (channel, list) =>
      events.push(...list.map((event) => JSON.stringify({ channel, event }))),
  });
  const emits: string[] = [];
  for (const chunk of chunks) emits.push(rewriter.push(decoder.decode(chunk, { stream: true })));
  emits.push(rewriter.push(decoder.decode()) + rewriter.end());
  return { output: emits.join(''), events, emits };
}

describe('generic structural adapter: chunking invariance', () => {
  it('any split of the wire bytes gives the single-chunk result', { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(FRAMINGS)),
        textArbitrary(secrets),
        cutsArbitrary,
        cutsArbitrary,
        (framing, text, pieceCuts, byteCuts) => {
          const body = (FRAMINGS[framing] as (pieces: string[]) => string)(cut(text, pieceCuts));
          const bytes = new TextEncoder().encode(body);
          const whole = run([bytes]);
          const split = run(splitBytes(bytes, byteCuts));
          expect(split.output).toBe(whole.output);
          expect(split.events).toEqual(whole.events);
          let released = '';
          for (const emit of split.emits) {
            released += emit;
            expect(whole.output.startsWith(released)).toBe(true);
          }
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
