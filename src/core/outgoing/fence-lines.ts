/**
 * The opening and closing fence lines of an envelope:
 *
 *   <untrusted-FENCE source="…" trust="low">
 *   </untrusted-FENCE>
 *
 * The source name is written as an XML-style attribute value: `&`, `"`, `<`,
 * `>` and every control, format, separator or lone-surrogate code point become
 * character references, so a source name can neither end the tag nor break the
 * line at any of the ten line boundaries (seed 000 §5).
 */
import { isFenceToken } from './fence-token.ts';

/** What must never appear raw inside the attribute value. */
const ATTRIBUTE_UNSAFE = /[&"<>\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const OPENING = /^<untrusted-([0-9a-f]+) source="([^"]*)" trust="low">$/;
const CLOSING = /^<\/untrusted-([0-9a-f]+)>$/;

/**
 * A line a reader could take for a fence line of any envelope: after leading
 * whitespace, `<untrusted-` or `</untrusted-` in any case. Used to check that
 * nothing but the real pair has this shape.
 */
const FENCE_SHAPED = /^\s*<\/?untrusted-/i;

export function escapeSourceAttribute(source: string): string {
  return source.replace(ATTRIBUTE_UNSAFE, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '"':
        return '&quot;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      default:
        return `&#x${(c.codePointAt(0) as number).toString(16).toUpperCase()};`;
    }
  });
}

const NAMED_REFERENCES: Record<string, string> = { amp: '&', quot: '"', lt: '<', gt: '>' };

/** The inverse of escapeSourceAttribute; null for a reference it never writes. */
export function unescapeSourceAttribute(value: string): string | null {
  let invalid = false;
  const text = value.replace(/&(#x[0-9A-F]{1,6}|amp|quot|lt|gt);|&/g, (whole, name?: string) => {
    if (name === undefined) {
      invalid = true;
      return whole;
    }
    if (name.startsWith('#x')) {
      const codePoint = Number.parseInt(name.slice(2), 16);
      if (codePoint > 0x10ffff) {
        invalid = true;
        return whole;
      }
      return String.fromCodePoint(codePoint);
    }
    return NAMED_REFERENCES[name] as string;
  });
  return invalid ? null : text;
}

export function openingFenceLine(fence: string, source: string): string {
  return `<untrusted-${fence} source="${escapeSourceAttribute(source)}" trust="low">`;
}

export function closingFenceLine(fence: string): string {
  return `</untrusted-${fence}>`;
}

export type FenceLine =
  { kind: 'opening'; fence: string; source: string } | { kind: 'closing'; fence: string };

/** The fence line `line` is exactly (as written by this module), or null. */
export function parseFenceLine(line: string): FenceLine | null {
  const opening = OPENING.exec(line);
  if (opening) {
    const fence = opening[1] as string;
    const source = unescapeSourceAttribute(opening[2] as string);
    if (!isFenceToken(fence) || source === null) return null;
    return { kind: 'opening', fence, source };
  }
  const closing = CLOSING.exec(line);
  if (closing && isFenceToken(closing[1] as string)) {
    return { kind: 'closing', fence: closing[1] as string };
  }
  return null;
}

export function looksLikeFenceLine(line: string): boolean {
  return FENCE_SHAPED.test(line);
}
