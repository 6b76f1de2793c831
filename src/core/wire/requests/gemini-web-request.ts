/**
 * Gemini web sends a form (WIRE-FORMATS.md §3.2): `f.req` is
 * `JSON.stringify([null, JSON.stringify(inner)])` and the prompt is
 * `inner[0][0]`. Paths below are inside `inner`. A rewrite changes only that
 * string inside the double encoding and re-encodes the `f.req` field alone; the
 * other form fields (the `at` XSRF token) keep their exact bytes.
 */
import { requestRecognisers } from './request-recognisers.ts';
import { replaceStrings } from '../json-string-span.ts';
import type { RequestAdapter, RequestEdit, RequestText } from './request-text.ts';

interface DecodedForm {
  fields: string[];
  /** Index of the `f.req=` field in `fields`. */
  index: number;
  outer: string;
  inner: string;
}

function decode(body: string): DecodedForm {
  const fields = body.split('&');
  const index = fields.findIndex((f) => f.startsWith('f.req='));
  if (index < 0) throw new SyntaxError('form has no f.req field');
  const outer = decodeURIComponent((fields[index] as string).slice(6).replace(/\+/g, ' '));
  const parsed: unknown = JSON.parse(outer);
  if (!Array.isArray(parsed) || typeof parsed[1] !== 'string') {
    throw new SyntaxError('f.req is not [null, "<inner json>"]');
  }
  return { fields, index, outer, inner: parsed[1] };
}

export const geminiWebRequest: RequestAdapter = {
  ...requestRecognisers.geminiWebRequest,
  locate(body): RequestText[] {
    const inner: unknown = JSON.parse(decode(body).inner);
    const first = Array.isArray(inner) ? inner[0] : undefined;
    const text = Array.isArray(first) ? first[0] : undefined;
    return typeof text === 'string'
      ? [{ path: [0, 0], text, part: 'new', role: 'user', message: 0 }]
      : [];
  },
  rewrite(body, edits: readonly RequestEdit[]): string {
    const form = decode(body);
    const inner = replaceStrings(form.inner, edits);
    const outer = replaceStrings(form.outer, [{ path: [1], value: inner }]);
    const fields = [...form.fields];
    fields[form.index] = `f.req=${encodeURIComponent(outer)}`;
    return fields.join('&');
  },
};
