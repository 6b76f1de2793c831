/**
 * Reading a `json` envelope back (issue 5 §2, `csg envelope --decode`): checks
 * the envelope and returns its source and items, the content exactly as it was
 * wrapped. Fails closed with a reason on anything else:
 *
 * - the text is split at every `str.splitlines()` boundary and CRLF, as the
 *   most eager line reader would; exactly one line may be the opening fence and
 *   one the closing fence, with the same token, opening first, and no other
 *   line may be shaped like a fence line;
 * - every line between them is a body line exactly as encodeJsonBodyLine writes
 *   it (so a quote envelope, being lossy, is refused), and there is at least one;
 * - lines before the opening fence (the declaration) are not interpreted;
 *   after the closing fence only empty lines may follow.
 */
import { splitLinesAtEveryBoundary } from './envelope-line-boundaries.ts';
import { type JsonBodyItem, decodeJsonBodyLine } from './envelope-json-line.ts';
import { QUOTE_TRUNCATED_MARK } from './envelope-quote-body.ts';
import {
  type FenceLine,
  looksLikeFenceLine,
  openingFenceLine,
  parseFenceLine,
} from './fence-lines.ts';

export interface DecodedEnvelope {
  fence: string;
  source: string;
  items: JsonBodyItem[];
}

export type DecodeResult = { ok: true; envelope: DecodedEnvelope } | { ok: false; reason: string };

function fail(reason: string): DecodeResult {
  return { ok: false, reason };
}

export function decodeEnvelope(text: string): DecodeResult {
  const lines = splitLinesAtEveryBoundary(text);
  const fenceLines: { at: number; fence: FenceLine | null }[] = [];
  lines.forEach((line, at) => {
    if (looksLikeFenceLine(line)) fenceLines.push({ at, fence: parseFenceLine(line) });
  });
  if (fenceLines.length === 0) return fail('no envelope: no <untrusted-…> fence line');
  const [open, close] = fenceLines;
  if (fenceLines.length !== 2 || open === undefined || close === undefined) {
    return fail(`expected exactly 2 fence lines, found ${fenceLines.length}`);
  }
  if (open.fence?.kind !== 'opening')
    return fail(`line ${open.at + 1} is not a valid opening fence`);
  if (close.fence?.kind !== 'closing') {
    return fail(`line ${close.at + 1} is not a valid closing fence`);
  }
  if (open.fence.fence !== close.fence.fence) {
    return fail('the opening and closing fences differ');
  }
  // Only the canonical spelling of the attribute is accepted (no alternative escapes).
  if (openingFenceLine(open.fence.fence, open.fence.source) !== lines[open.at]) {
    return fail(`line ${open.at + 1} is not a valid opening fence`);
  }
  const trailing = lines.slice(close.at + 1).find((line) => line !== '');
  if (trailing !== undefined) return fail('text follows the closing fence');
  const bodyLines = lines.slice(open.at + 1, close.at);
  if (bodyLines.length === 0) return fail('the envelope holds no item');
  const items: JsonBodyItem[] = [];
  for (const [i, line] of bodyLines.entries()) {
    const item = decodeJsonBodyLine(line);
    if (item === null) {
      const lossy = line.startsWith('> ') || line === QUOTE_TRUNCATED_MARK;
      return fail(
        lossy
          ? 'a quote envelope is lossy and cannot be decoded (only json envelopes can)'
          : `line ${open.at + 2 + i} is not a json envelope body line`,
      );
    }
    items.push(item);
  }
  return {
    ok: true,
    envelope: { fence: open.fence.fence, source: open.fence.source, items },
  };
}
