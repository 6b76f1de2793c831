/**
 * A channel's ledger over long streams (issue 19 §3): released pieces are folded
 * and fed chunks joined every few hundred pushes, which must not change what any
 * span reads — each frame's text, the cumulative text up to any point, and the
 * input so far — for any text, any chunking and any mix of the two kinds of
 * span.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import { ChannelLedger } from '../../../src/core/wire/channel-ledger.ts';
import { codeWordPackSpec } from '../../support/code-word-pack.ts';

const pack = compilePack(codeWordPackSpec('ledger-test', '1', false));

/** Long streams of short chunks, so folding and joining happen several times. */
const stream = fc.array(
  fc.tuple(
    fc.oneof(fc.string({ minLength: 1, maxLength: 3 }), fc.constantFrom('zebra-', '123', '4')),
    // Whether this chunk's frame reads the cumulative text (a snapshot) or its own.
    fc.boolean(),
  ),
  { minLength: 300, maxLength: 1500 },
);

describe('ChannelLedger', () => {
  it('gives each span the guard output of its own input, and the cumulative text, at any length', () => {
    fc.assert(
      fc.property(stream, (chunks) => {
        const ledger = new ChannelLedger('c', pack, {}, () => {});
        const guard = new StreamGuard(pack);
        let expected = '';
        let input = '';
        const spans: { from: number; to: number; cumulative: boolean }[] = [];
        let rendered = '';
        let next = 0;
        const drain = () => {
          while (next < spans.length && ledger.settled((spans[next] as { to: number }).to)) {
            const s = spans[next++] as { from: number; to: number; cumulative: boolean };
            if (s.cumulative)
              expect(ledger.textUpTo(s.to)).toBe(rendered + ledger.textOf(s.from, s.to));
            rendered += ledger.textOf(s.from, s.to);
          }
        };
        for (const [text, cumulative] of chunks) {
          expected += guard.push(text).emit;
          input += text;
          const from = ledger.feed(text);
          spans.push({ from, to: ledger.fed, cumulative });
          drain();
        }
        expected += guard.end().emit;
        ledger.finish();
        drain();
        expect(next).toBe(spans.length);
        expect(rendered).toBe(expected);
        expect(ledger.textUpTo(ledger.fed)).toBe(expected);
        expect(ledger.inputText).toBe(input);
      }),
      { numRuns: 60 },
    );
  });
});
