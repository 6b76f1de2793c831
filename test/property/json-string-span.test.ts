/**
 * Byte-preserving JSON edits (src/core/wire/json-string-span.ts), for any JSON
 * document and any formatting: replacing a string at a path changes exactly
 * that value, and re-writing every string with itself is the identity.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonPath, replaceStrings } from '../../src/core/wire/json-string-span.ts';

function stringPaths(value: unknown, at: JsonPath = []): JsonPath[] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...at, i]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) =>
      k === '__proto__' ? [] : stringPaths(v, [...at, k]),
    );
  }
  return [];
}

function setAt(value: unknown, path: JsonPath, replacement: string): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value))
    return value.map((v, i) => (i === head ? setAt(v, rest, replacement) : v));
  const record = value as Record<string, unknown>;
  return { ...record, [head as string]: setAt(record[head as string], rest, replacement) };
}

const documents = fc
  .tuple(fc.jsonValue(), fc.constantFrom(0, 2, '\t'))
  .map(([value, indent]) => ({
    value: JSON.parse(JSON.stringify(value)) as unknown,
    text: JSON.stringify(value, null, indent),
  }))
  .filter(({ text }) => text !== undefined && !text.includes('__proto__'));

describe('replaceStrings', () => {
  it('rewriting every string with itself returns the same bytes', () => {
    fc.assert(
      fc.property(documents, ({ value, text }) => {
        const edits = stringPaths(value)
          .filter((p) => p.length > 0)
          .map((path) => ({
            path,
            value: JSON.parse(
              JSON.stringify(
                path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value),
              ),
            ) as string,
          }));
        // Identity up to the escaping JSON.stringify chose, which is what the text already uses.
        expect(replaceStrings(text, edits)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('replacing one string changes exactly that value', () => {
    fc.assert(
      fc.property(
        documents,
        fc.string({ unit: 'binary' }),
        fc.nat(),
        ({ value, text }, replacement, pick) => {
          const paths = stringPaths(value).filter((p) => p.length > 0);
          fc.pre(paths.length > 0);
          const path = paths[pick % paths.length] as JsonPath;
          const out = replaceStrings(text, [{ path, value: replacement }]);
          expect(JSON.parse(out)).toEqual(setAt(value, path, replacement));
        },
      ),
      { numRuns: 500 },
    );
  });
});
