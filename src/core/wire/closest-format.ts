/**
 * For a response no adapter recognises (issue 20 §3: `csg replay` names "the
 * closest format and why it was refused"): each registered adapter is scored
 * by what of the response it does match, and the best one is named with what
 * matched and what did not.
 *
 * Evidence, read without changing any recogniser (wire-recognisers.ts stays in
 * the page's size budget), by asking each recogniser counterfactual questions:
 * - its URL: the recogniser accepts the response's URL with an empty body under
 *   some content type, and not the same probe without the URL;
 * - its body head: it accepts the response's first ~1 KB without the URL under
 *   some content type;
 * - its content type: the recorded (or sniffed) type is one its framing reads;
 * - its events: the body decoded with the adapter's own framing and session
 *   (no guard) has events that carry text it reads (not counted for an adapter
 *   that reads text in any body, such as the AI SDK text stream).
 * The URL, the body head and events with text weigh the same; the content type
 * alone never makes a format "close". Only names of JSON keys are reported,
 * never body text (no raw content in logs, DESIGN.md).
 */
import type { RawFrame } from './raw-frame.ts';
import { wireAdapters } from './adapter-registry.ts';
import { utf8ByteString } from './byte-string.ts';
import { framerFor } from './stream-rewriter.ts';
import { type WireAdapter, type WireFormat, type WireProbe, readsBytes } from './wire-event.ts';

/** Content types asked in the counterfactual probes: each framing's usual one. */
const CONTENT_TYPES = [
  'text/event-stream',
  'application/x-ndjson',
  'application/json',
  'text/plain',
];
/** How much of a body is decoded to look for events with text. */
const DECODE_CHARS = 64 * 1024;
/** How many key names of the first event are shown. */
const KEY_NAMES = 6;
/**
 * Bodies with no text any chat format would read, one per framing. An adapter
 * that finds text in one of them reads any text at all (the AI SDK text stream,
 * §1.7): its finding text in a response says nothing about the format.
 */
const CONTROL_BODIES = ['data: {"z":0}\n\n', '{"z":0}\n', 'z'];

export interface EventCount {
  /** Frames decoded. */
  events: number;
  /** Frames that carry text the adapter reads. */
  withText: number;
  /** The key names of the first frame's JSON object, if it is one. */
  firstKeys: string[] | undefined;
}

export interface ClosestFormat {
  format: WireFormat;
  adapter: string;
  url: boolean;
  head: boolean;
  contentType: boolean;
  count: EventCount;
}

const WEIGHT = { url: 3, head: 3, text: 3, contentType: 1 } as const;

/** The content types a framing reads; undefined when any type may carry it. */
function typesOf(adapter: WireAdapter): RegExp | undefined {
  switch (adapter.framing) {
    case 'sse':
      return /event-stream/;
    case 'ndjson':
      return /ndjson|json|text\/plain/;
    case 'whole-body':
    case 'length-prefixed':
      return /json/;
    default:
      return undefined;
  }
}

const FRAMING_NAME: Record<string, string> = {
  sse: 'SSE (text/event-stream)',
  ndjson: 'JSON lines',
  'whole-body': 'JSON',
  'length-prefixed': 'JSON',
};

function accepts(adapter: WireAdapter, probe: WireProbe): boolean {
  return CONTENT_TYPES.some((contentType) => adapter.detect({ ...probe, contentType }));
}

function urlMatches(adapter: WireAdapter, probe: WireProbe): boolean {
  if (probe.url === '') return false;
  const bare: WireProbe = { url: probe.url, contentType: '', head: '' };
  if (probe.method !== undefined) bare.method = probe.method;
  return accepts(adapter, bare) && !accepts(adapter, { ...bare, url: '' });
}

function keysOf(frame: RawFrame): string[] | undefined {
  const text = frame.sse?.data ?? frame.payload ?? frame.raw;
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return Object.keys(value).slice(0, KEY_NAMES);
  } catch {
    return undefined;
  }
}

/** The body decoded with the adapter's own framing and session: how many events carry text. */
export function countEvents(adapter: WireAdapter, body: string): EventCount {
  const count: EventCount = { events: 0, withText: 0, firstKeys: undefined };
  try {
    const framer = adapter.createFramer?.() ?? framerFor(adapter.framing);
    const session = adapter.open();
    // A byte-level adapter reads the body's UTF-8 bytes (byte-string.ts).
    const head = body.slice(0, DECODE_CHARS);
    const text = readsBytes(adapter) ? utf8ByteString(head) : head;
    for (const frame of [...framer.push(text), ...framer.end()]) {
      if (frame.raw.trim() === '') continue;
      count.events++;
      count.firstKeys ??= keysOf(frame);
      if (session.decode(frame).slots.length > 0) count.withText++;
    }
  } catch {
    // A body this adapter cannot even frame: no events of its own.
  }
  return count;
}

function score(c: ClosestFormat): number {
  return (
    (c.url ? WEIGHT.url : 0) +
    (c.head ? WEIGHT.head : 0) +
    (c.count.withText > 0 ? WEIGHT.text : 0) +
    (c.contentType ? WEIGHT.contentType : 0)
  );
}

/** The evidence one adapter finds in a response. */
export function evidenceOf(adapter: WireAdapter, probe: WireProbe, body: string): ClosestFormat {
  const types = typesOf(adapter);
  const indiscriminate = CONTROL_BODIES.some((b) => countEvents(adapter, b).withText > 0);
  const count = countEvents(adapter, body);
  if (indiscriminate) count.withText = 0;
  return {
    format: adapter.format,
    adapter: adapter.id,
    url: urlMatches(adapter, probe),
    head: accepts(adapter, { ...probe, url: '' }),
    contentType: types !== undefined && probe.contentType !== '' && types.test(probe.contentType),
    count,
  };
}

/**
 * The registered format closest to a response no adapter recognised, or
 * undefined when none matches its URL, its body head or its events. Ties go to
 * the earlier adapter in detection order; the generic adapter is not a format.
 */
export function closestFormat(probe: WireProbe, body: string): ClosestFormat | undefined {
  let best: ClosestFormat | undefined;
  for (const adapter of wireAdapters) {
    if (adapter.format === 'generic') continue;
    const evidence = evidenceOf(adapter, probe, body);
    const points = score(evidence);
    if (points < WEIGHT.url) continue;
    if (best === undefined || points > score(best)) best = evidence;
  }
  return best;
}

/** What matched and why it was refused, in one line: `openai-chat (URL matches; but …)`. */
export function describeClosest(
  closest: ClosestFormat | undefined,
  probe: WireProbe,
  adapterOf: (id: string) => WireAdapter | undefined = (id) =>
    wireAdapters.find((a) => a.id === id),
): string {
  if (closest === undefined) return 'none (no format matches its URL, body or events)';
  const adapter = adapterOf(closest.adapter);
  const framing = adapter === undefined ? '' : (FRAMING_NAME[adapter.framing] ?? '');
  const matched: string[] = [];
  const refused: string[] = [];
  if (closest.url) matched.push('URL matches its route');
  else
    refused.push(probe.url === '' ? 'no URL to match its routes' : 'URL is not one of its routes');
  if (closest.head) matched.push('body opens like it');
  if (closest.contentType) matched.push(`content type ${probe.contentType} fits`);
  else if (framing !== '')
    refused.push(`content type ${probe.contentType || '(none)'} is not ${framing}`);
  const { events, withText, firstKeys } = closest.count;
  if (withText > 0) matched.push(`${withText} of ${events} events carry text it reads`);
  else {
    const keys = firstKeys === undefined ? '' : `; first event's keys: ${firstKeys.join(', ')}`;
    refused.push(`none of ${events} events carries text it reads${keys}`);
  }
  const why = refused.length > 0 ? `; refused: ${refused.join(', ')}` : '';
  return `${closest.format} [${closest.adapter}] (${matched.join(', ')}${why})`;
}
