/**
 * Paste-as-untrusted envelopes (issue 5 §2; seed 000, seed 004 §3): the API
 * the extension calls at send time and `csg envelope` uses.
 *
 *   const request = freshFence();                       // once per request
 *   const a = wrapUntrusted([spanA], { fence: request, source: 'paste' });
 *   const b = wrapUntrusted([spanB], { fence: request, source: 'paste' });
 *
 * or, for several items in one envelope, `wrapUntrusted([x, y], { source })`
 * (a fresh fence is drawn when none is given). Every envelope is
 *
 *   declaration line
 *   <untrusted-FENCE source="…" trust="low">
 *   one body line per item (json), or "> "-quoted lines per item (quote)
 *   </untrusted-FENCE>
 *
 * joined with LF, without a trailing line break. For any content, splitting
 * the text at any of the ten `str.splitlines()` boundaries or CRLF gives
 * exactly one opening and one closing fence line, in that order, and no other
 * line shaped like a fence line; `json` decodes (decodeEnvelope) to the
 * original items exactly, lone surrogates included.
 *
 * Items in a quote envelope are separated by an empty line (content lines all
 * start with "> ", so the separator cannot be forged).
 *
 * The result reports, per item, whether it went whole, truncated or skipped,
 * with byte counts only: never the content, so the report may go to the audit
 * log (DESIGN.md invariant 7). When an item is skipped the caller decides what
 * to do with it (the extension must not send it unwrapped: fail closed).
 */
import { fitItem, utf8Length } from './envelope-budget.ts';
import { declarationLine } from './envelope-declaration.ts';
import { encodeJsonBodyLine } from './envelope-json-line.ts';
import { quoteBodyLines } from './envelope-quote-body.ts';
import type { EnvelopeRenderer } from './envelope-renderer.ts';
import { closingFenceLine, openingFenceLine } from './fence-lines.ts';
import { type RandomFill, defaultRandomFill, freshFence, isFenceToken } from './fence-token.ts';

export interface WrapOptions {
  /** Default `json`. */
  renderer?: EnvelopeRenderer;
  /** A name for where the material came from (escaped into the tag). Default "unknown". */
  source?: string;
  /** The request's fence (from freshFence), shared by every envelope of one request. */
  fence?: string;
  /** Where a fresh fence comes from when `fence` is not given. Default crypto.getRandomValues. */
  random?: RandomFill;
  /** Maximum UTF-8 bytes of the whole envelope text. Default: no limit. */
  budget?: number;
}

export type ItemOutcome =
  | { index: number; status: 'whole'; bytes: number }
  | { index: number; status: 'truncated'; bytes: number; deliveredBytes: number }
  | { index: number; status: 'skipped'; bytes: number };

export interface WrapResult {
  /** The envelope, or '' when no item could be delivered. */
  text: string;
  fence: string;
  renderer: EnvelopeRenderer;
  /** One outcome per input item, in order; `bytes` is the item's UTF-8 length. */
  items: ItemOutcome[];
}

const LINE_BREAK = '\n';

function renderItem(renderer: EnvelopeRenderer): (content: string, truncated: boolean) => string[] {
  return renderer === 'json'
    ? (content, truncated) => [encodeJsonBodyLine(content, truncated)]
    : quoteBodyLines;
}

/** Bytes of lines joined into the envelope: each line plus the LF before it. */
function linesCost(lines: string[]): number {
  return lines.reduce((sum, line) => sum + utf8Length(line) + LINE_BREAK.length, 0);
}

export function wrapUntrusted(items: readonly string[], options: WrapOptions = {}): WrapResult {
  const renderer = options.renderer ?? 'json';
  const fence = options.fence ?? freshFence(options.random ?? defaultRandomFill);
  if (!isFenceToken(fence)) throw new RangeError('fence must be 24 to 64 lowercase hex digits');
  const budget = options.budget ?? Number.POSITIVE_INFINITY;
  if (!(budget >= 0)) throw new RangeError('budget must be a number of bytes ≥ 0');
  const frame = [
    declarationLine(renderer, fence),
    openingFenceLine(fence, options.source ?? 'unknown'),
  ];
  const closing = closingFenceLine(fence);
  // The frame's own bytes: its lines, the closing line and the LFs between them.
  let available = budget - (linesCost(frame) - LINE_BREAK.length) - linesCost([closing]);
  const render = renderItem(renderer);
  const body: string[] = [];
  const outcomes: ItemOutcome[] = items.map((content, index) => {
    const bytes = utf8Length(content);
    // Quote items after the first are preceded by an empty separator line.
    const separator = renderer === 'quote' && body.length > 0 ? [''] : [];
    const fitted = fitItem(
      content,
      available,
      (c, t) => [...separator, ...render(c, t)],
      linesCost,
    );
    if (fitted.status === 'skipped') return { index, status: 'skipped', bytes };
    body.push(...fitted.lines);
    available -= linesCost(fitted.lines);
    return fitted.status === 'whole'
      ? { index, status: 'whole', bytes }
      : { index, status: 'truncated', bytes, deliveredBytes: fitted.deliveredBytes };
  });
  const delivered = outcomes.some((o) => o.status !== 'skipped');
  const text = delivered ? [...frame, ...body, closing].join(LINE_BREAK) : '';
  return { text, fence, renderer, items: outcomes };
}
