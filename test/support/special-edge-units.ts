/**
 * Code units at and around the edges of the rendered view's special ranges
 * (rendered-view.ts SPECIAL_SOURCE: Markdown and HTML punctuation, hidden and
 * format characters, tag-character surrogates), for the property tests that
 * compare its table with its expression.
 */
import fc from 'fast-check';

export const specialEdgeUnit: fc.Arbitrary<number> = fc.constantFrom(
  ...[0x25, 0x26, 0x27, 0x29, 0x2a, 0x2b, 0x3b, 0x3c, 0x3d, 0x5f, 0x60, 0x61, 0xac, 0xad, 0xae],
  ...[0x200a, 0x200b, 0x200f, 0x2010, 0x2060, 0x206f, 0xfe00, 0xfe0f, 0xfeff, 0xfff8, 0xfff9],
  ...[0xdb3f, 0xdb40, 0xdb43, 0xdb44, 0xdc00],
);
