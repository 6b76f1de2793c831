/**
 * big-AGI (WIRE-FORMATS.md §6.5): the browser sends the whole conversation to
 * its Next.js server as the input of the tRPC mutation `aix.chatGenerateContent`.
 *
 * Confidence, per layer:
 * - The input schema — HIGH. Read in enricoros/big-AGI
 *   `src/modules/aix/server/api/aix.router.ts` (`chatGenerateContent` input:
 *   `{access, model, chatGenerate, context, streaming, connectionOptions?}`) and
 *   `aix.wiretypes.ts` (`AixWire_API_ChatContentGenerate.Request_schema`:
 *   `{systemMessage: {parts} | null, chatSequence: [{role: 'user'|'model'|'tool',
 *   parts: [...]}], tools?, toolsPolicy?}`; parts are discriminated by `pt`:
 *   `text {text}`, `doc {data: {idt: 'text', text}, ref, l1Title?}`,
 *   `inline_image`, `tool_invocation`, `tool_response`, `ma` (reasoning, with a
 *   provider signature), `meta_cache_control`, `meta_in_reference_to
 *   {referTo: [{mText, mRole}]}`).
 * - The HTTP framing — MEDIUM, inferred, not seen in a capture: the client
 *   (`src/common/util/trpc.client.ts`, `apiStream`) uses tRPC's
 *   `unstable_httpBatchStreamLink` with the superjson transformer, so the
 *   request is `POST <base>/api/<edge|cloud>/aix.chatGenerateContent?batch=1`
 *   with the body `{"0":{"json":<input>,"meta"?:…}}`; `httpLink` (unbatched) would
 *   send `{"json":<input>}`. All three wrappings (and a bare input) are read.
 *
 * The last `user` message of `chatSequence` is the person's new turn: its text
 * parts are `new`, its documents and quoted references `attachment`; everything
 * earlier is history. Reasoning parts (`ma`) are never located: they travel with
 * a provider signature that a changed text would break.
 */
import { requestRecognisers } from './request-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import { replaceStrings } from '../json-string-span.ts';
import { isRecord } from '../sse-json-render.ts';
import type { RequestAdapter, RequestPart, RequestRole, RequestText } from './request-text.ts';

/** Where the procedure input sits in the body, for each tRPC wrapping (batched first). */
const INPUT_PATHS: readonly JsonPath[] = [['0', 'json'], ['json'], ['0'], []];

function at(json: unknown, path: JsonPath): unknown {
  let value = json;
  for (const key of path) {
    if (!isRecord(value) && !Array.isArray(value)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/**
 * The path of the `aix.chatGenerateContent` input in a parsed body: the first
 * wrapping whose value has `chatGenerate.chatSequence` as a list; undefined when none has.
 */
export function bigAgiInputPath(json: unknown): JsonPath | undefined {
  return INPUT_PATHS.find((path) => {
    const input = at(json, path);
    return isRecord(input) && Array.isArray(at(input, ['chatGenerate', 'chatSequence']));
  });
}

/** The path of `chatSequence` in a parsed body, or undefined. */
export function bigAgiSequencePath(json: unknown): JsonPath | undefined {
  const input = bigAgiInputPath(json);
  return input === undefined ? undefined : [...input, 'chatGenerate', 'chatSequence'];
}

function roleOf(value: unknown): RequestRole {
  if (value === 'model') return 'assistant';
  if (value === 'tool') return 'tool';
  return 'user';
}

/** The strings of one `parts` list, with the part each belongs to. */
function partTexts(
  parts: unknown,
  path: JsonPath,
  textPart: RequestPart,
  documentPart: RequestPart,
): { path: JsonPath; text: string; part: RequestPart }[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((p: unknown, j: number) => {
    if (!isRecord(p)) return [];
    if (p.pt === 'text' && typeof p.text === 'string') {
      return [{ path: [...path, j, 'text'], text: p.text, part: textPart }];
    }
    if (p.pt === 'doc' && isRecord(p.data) && typeof p.data.text === 'string') {
      return [{ path: [...path, j, 'data', 'text'], text: p.data.text, part: documentPart }];
    }
    if (p.pt === 'meta_in_reference_to' && Array.isArray(p.referTo)) {
      return p.referTo.flatMap((r: unknown, k: number) =>
        isRecord(r) && typeof r.mText === 'string'
          ? [{ path: [...path, j, 'referTo', k, 'mText'], text: r.mText, part: documentPart }]
          : [],
      );
    }
    return [];
  });
}

function locate(body: string): RequestText[] {
  const json: unknown = JSON.parse(body);
  const input = bigAgiInputPath(json);
  if (input === undefined) throw new SyntaxError('no aix.chatGenerateContent input in the body');
  const generate = at(json, [...input, 'chatGenerate']) as Record<string, unknown>;
  const texts: RequestText[] = [];
  if (isRecord(generate.systemMessage)) {
    const path: JsonPath = [...input, 'chatGenerate', 'systemMessage', 'parts'];
    for (const t of partTexts(generate.systemMessage.parts, path, 'system', 'system')) {
      texts.push({ ...t, role: 'system', message: -1 });
    }
  }
  const sequence = generate.chatSequence as unknown[];
  const lastUser = sequence.reduce<number>(
    (last, m, i) => (isRecord(m) && m.role === 'user' ? i : last),
    -1,
  );
  sequence.forEach((m, i) => {
    if (!isRecord(m)) return;
    const role = roleOf(m.role);
    const path: JsonPath = [...input, 'chatGenerate', 'chatSequence', i, 'parts'];
    const isNew = i === lastUser;
    const located = partTexts(
      m.parts,
      path,
      isNew ? 'new' : 'history',
      isNew ? 'attachment' : 'history',
    );
    for (const t of located) texts.push({ ...t, role, message: i });
  });
  return texts;
}

export const bigAgiRequest: RequestAdapter = {
  ...requestRecognisers.bigAgiRequest,
  locate,
  rewrite: (body, edits) => replaceStrings(body, edits),
};
