/**
 * Perplexity's send (WIRE-FORMATS.md §5.5, WIRE-FORMATS-2.md §4.1): the
 * person's text in two places, `params.dsl_query` and `query_str`; both are
 * the new message, so both copies are guarded alike.
 */
import type { JsonPath } from '../json-string-span.ts';
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import { requestRecognisers } from './request-recognisers.ts';
import type { RequestAdapter, RequestText } from './request-text.ts';

function query(value: unknown, path: JsonPath): RequestText[] {
  return typeof value === 'string'
    ? [{ path, text: value, part: 'new', role: 'user', message: 0 }]
    : [];
}

export const perplexityRequest: RequestAdapter = {
  ...requestRecognisers.perplexityRequest,
  locate: (body) => {
    const json: unknown = JSON.parse(body);
    if (!isRecord(json)) throw new SyntaxError('request body is not a JSON object');
    const params = isRecord(json.params) ? json.params.dsl_query : undefined;
    return [...query(params, ['params', 'dsl_query']), ...query(json.query_str, ['query_str'])];
  },
  rewrite: replaceStrings,
};
