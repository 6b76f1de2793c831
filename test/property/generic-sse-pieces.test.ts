/**
 * Issue 17's promise (a secret redacted whole) for a plain-text answer that a server
 * sends as SSE events in no known format, cut anywhere (generic-structural.ts): the
 * page joins the events' data, so the guard must read them as one text, however the
 * pieces fall. A piece may read as JSON by chance (`7`, ` 12`, `true`, `null`), or
 * begin with all the text so far, or repeat it: it is still the next piece of the text,
 * not a value, a snapshot or an echo. For any text of the secrets and PII packs' examples and any
 * cut into events, the joined data the page receives equals what it receives when the
 * whole text is one event.
 */
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinPackSources, getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { genericAdapter } from '../../src/core/wire/adapters/structural.ts';
import { StreamRewriter } from '../../src/core/wire/stream-rewriter.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary, textArbitrary } from '../support/text-arbitraries.ts';

const pack = getCorePack();
const sourceOf = (name: string) => builtinPackSources.find((p) => p.name === name)!;

/**
 * Text with no line break (one data line per event), and no quote or bracket: a piece
 * that reads as a JSON string or container is guarded by its own rules (its decoded
 * value, its strings by path), so the equality below would not hold for it by design.
 */
const answer = fc
  .oneof(textArbitrary(sourceOf('secrets')), textArbitrary(sourceOf('pii')))
  .map((text) => text.replace(/[\r\n"[\]{}]/g, ' '));

/** Digits, words and literals that read as JSON, dropped between the pieces' cuts. */
const jsonLike = fc.constantFrom('7', ' 12', '0', '-3', '1e5', 'true', 'null', 'false ');

/** The joined data of the `chunk` events a body carries, as a page's EventSource reads it. */
function pageText(body: string): string {
  let text = '';
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === 'chunk') text += event.data;
    },
  });
  parser.feed(body);
  return text;
}

function received(pieces: readonly string[]): string {
  const rewriter = new StreamRewriter(genericAdapter, pack, {});
  let out = '';
  for (const piece of pieces) out += rewriter.push(`event: chunk\ndata: ${piece}\n\n`);
  out += rewriter.push('event: done\ndata: {}\n\n') + rewriter.end();
  return pageText(out);
}

describe('generic SSE: plain text cut into events is guarded as one text', () => {
  it('any cut into events gives the page what one event gives', { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(
        answer,
        cutsArbitrary,
        fc.array(fc.tuple(fc.nat(), jsonLike), { maxLength: 3 }),
        fc.boolean(),
        (text, cuts, inserts, repeat) => {
          // Some pieces made JSON-like on purpose: the text gets them too.
          const pieces = cut(text, cuts).filter((p) => p !== '');
          for (const [at, piece] of inserts) pieces.splice(at % (pieces.length + 1), 0, piece);
          // A second piece that begins with all the text so far, or repeats it: still a piece.
          if (repeat && pieces.length > 1) pieces[1] = pieces[0] + (pieces[1] as string);
          if (repeat && pieces.length === 1) pieces.push(pieces[0] as string);
          const whole = pieces.join('');
          expect(received(pieces)).toBe(received([whole]));
        },
      ),
      { numRuns: Math.min(PROPERTY_RUNS, 2_000) },
    );
  });
});
