/**
 * HAR files exported from a browser's DevTools (HAR 1.2: `log.entries[]`, each
 * with `request.url`/`method` and `response.content.{mimeType,text,encoding}`),
 * as `csg replay` reads and rewrites them: the response bodies decoded (base64
 * ones too), and the same file with some bodies replaced, every other byte kept.
 */
import { harContentSpans } from './har-content-spans.ts';
import { jsonSyntaxError } from './json-syntax-error.ts';
import { UsageError } from './usage-error.ts';

export interface HarEntryBody {
  /** Index in `log.entries`. */
  index: number;
  method: string;
  url: string;
  mimeType: string;
  /** The decoded response body, or undefined when the HAR holds none. */
  text: string | undefined;
  /** The body was stored base64 (`content.encoding: "base64"`). */
  base64: boolean;
  /** `content.text` as stored (base64 or not), for the body's bytes (`harBodyBytes`). */
  stored?: string;
  /** The request body as sent (`request.postData.text`), when recorded. */
  requestBody?: string;
  /** The response headers, names in lower case (`response.headers[]`). */
  headers: Record<string, string>;
  /**
   * A WebSocket entry's frames as Chrome DevTools records them (`_webSocketMessages`:
   * `{type: "send"|"receive", time, opcode, data}`), when the entry has them.
   */
  socketMessages?: HarSocketMessage[];
}

/** One WebSocket frame of a DevTools HAR entry; other recorded fields are kept as they are. */
export interface HarSocketMessage {
  type: string;
  time?: number;
  /** 1 = text, 2 = binary (its data base64), per RFC 6455 §5.2. */
  opcode: number;
  data: string;
  [field: string]: unknown;
}

export interface HarCapture {
  entries: HarEntryBody[];
}

/** True when `text` opens like a HAR file (`{"log":`), used by `--format auto`. */
export function looksLikeHar(text: string): boolean {
  return /^\ufeff?\s*\{\s*"log"\s*:/.test(text);
}

/** Line and column (1-based, in UTF-16 units) of `position` in `text`. */
export function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(position, text.length);
  for (let nl = text.indexOf('\n'); nl !== -1 && nl < end; nl = text.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return { line, column: end - lineStart + 1 };
}

/** Why `text` is not JSON, as "<reason> at line L column C" (never quoting the text). */
function parseErrorMessage(text: string): string {
  const error = jsonSyntaxError(text);
  if (error === null) return 'not JSON';
  const { line, column } = lineAndColumn(text, error.position);
  return `${error.reason} at line ${line} column ${column}`;
}

function field(record: unknown, key: string): unknown {
  return typeof record === 'object' && record !== null && !Array.isArray(record)
    ? (record as Record<string, unknown>)[key]
    : undefined;
}

function stringField(record: unknown, key: string): string {
  const value = field(record, key);
  return typeof value === 'string' ? value : '';
}

/** HAR `headers[]` (`{name, value}`) as one record, names in lower case. */
function headersOf(list: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!Array.isArray(list)) return headers;
  for (const header of list as unknown[]) {
    const name = stringField(header, 'name').toLowerCase();
    if (name !== '') headers[name] = stringField(header, 'value');
  }
  return headers;
}

/** The entry's `_webSocketMessages`, keeping only frames with a type, an opcode and string data. */
function socketMessagesOf(list: unknown): HarSocketMessage[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return (list as unknown[]).filter(
    (m): m is HarSocketMessage =>
      typeof field(m, 'type') === 'string' &&
      typeof field(m, 'opcode') === 'number' &&
      typeof field(m, 'data') === 'string',
  );
}

function decodeBase64(text: string): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.from(text, 'base64'));
}

function captureOf(har: unknown): HarCapture | null {
  const entries = field(field(har, 'log'), 'entries');
  if (!Array.isArray(entries)) return null;
  return {
    entries: entries.map((entry: unknown, index): HarEntryBody => {
      const request = field(entry, 'request');
      const response = field(entry, 'response');
      const content = field(response, 'content');
      const raw = field(content, 'text');
      const base64 = field(content, 'encoding') === 'base64';
      const requestBody = field(field(request, 'postData'), 'text');
      const socketMessages = socketMessagesOf(field(entry, '_webSocketMessages'));
      return {
        ...(socketMessages === undefined ? {} : { socketMessages }),
        ...(typeof requestBody === 'string' ? { requestBody } : {}),
        headers: headersOf(field(response, 'headers')),
        index,
        method: stringField(request, 'method'),
        url: stringField(request, 'url'),
        mimeType: stringField(content, 'mimeType'),
        text: typeof raw !== 'string' ? undefined : base64 ? decodeBase64(raw) : raw,
        base64,
        ...(typeof raw === 'string' ? { stored: raw } : {}),
      };
    }),
  };
}

/**
 * The response body's bytes: the base64 decoded, or the recorded text's UTF-8
 * (a byte-level body, e.g. Kimi's Connect envelopes, is read from these; a
 * HAR that stored such a body as text may already have lost bytes that were
 * not UTF-8, which DevTools avoids by storing it base64).
 */
export function harBodyBytes(entry: HarEntryBody): Buffer {
  const stored = entry.stored ?? '';
  return entry.base64 ? Buffer.from(stored, 'base64') : Buffer.from(stored, 'utf8');
}

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses a HAR file; a UsageError naming the position when it is not JSON or not a HAR. */
export function parseHar(text: string, label: string): HarCapture {
  const json = withoutBom(text);
  let har: unknown;
  try {
    har = JSON.parse(json) as unknown;
  } catch {
    throw new UsageError(`malformed HAR ${label}: ${parseErrorMessage(json)}`);
  }
  const capture = captureOf(har);
  if (capture === null) throw new UsageError(`malformed HAR ${label}: no "log.entries" array`);
  return capture;
}

/**
 * For `--format auto`: the HAR when `text` is one, null when it is some other
 * body. A text that opens like a HAR (`{"log":`) but does not parse is a
 * malformed HAR (UsageError with the position), not a body to guess about.
 */
export function harIfAny(text: string, label: string): HarCapture | null {
  if (looksLikeHar(text)) return parseHar(text, label);
  const json = withoutBom(text);
  if (!json.trimStart().startsWith('{')) return null;
  try {
    return captureOf(JSON.parse(json));
  } catch {
    return null;
  }
}

/**
 * The HAR text with the response bodies of some entries replaced (`bodies`:
 * entry index → new decoded body, or its bytes for a byte-level body), stored
 * as the entry stored its own (base64 or not), and `content.size` set to the
 * new body's length in bytes; and the `_webSocketMessages` of some entries
 * (`sockets`: entry index → the frames to record). Every other byte stays as it was.
 */
export function rewriteHar(
  text: string,
  entries: readonly HarEntryBody[],
  bodies: ReadonlyMap<number, string | Uint8Array>,
  sockets: ReadonlyMap<number, readonly HarSocketMessage[]> = new Map(),
): string {
  if (bodies.size === 0 && sockets.size === 0) return text;
  const spans = harContentSpans(text);
  const edits: { start: number; end: number; value: string }[] = [];
  // A guarded socket's frames replace its `_webSocketMessages` array whole (same structure).
  for (const [index, messages] of sockets) {
    const at = spans.get(index)?.socket;
    if (at === undefined) throw new Error(`HAR entry ${index} has no _webSocketMessages`);
    edits.push({ ...at, value: JSON.stringify(messages) });
  }
  for (const [index, body] of bodies) {
    const entry = entries[index];
    const at = spans.get(index);
    if (entry === undefined || at?.text === undefined) {
      throw new Error(`HAR entry ${index} has no response text to replace`);
    }
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
    const stored = entry.base64 ? bytes.toString('base64') : bytes.toString('utf8');
    edits.push({ ...at.text, value: JSON.stringify(stored) });
    if (at.size !== undefined && /^-?\d/.test(text.slice(at.size.start, at.size.end))) {
      edits.push({ ...at.size, value: String(bytes.length) });
    }
  }
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let from = 0;
  for (const edit of edits) {
    out += text.slice(from, edit.start) + edit.value;
    from = edit.end;
  }
  return out + text.slice(from);
}
