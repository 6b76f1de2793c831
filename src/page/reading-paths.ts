/**
 * Every way page code can read an answer, and what the MAIN-world hooks make of it
 * (issue 18 §3 and §5): one list for the four hooks. A test reads an answer carrying a
 * secret through each path and checks the verdict (test/unit/page/reading-paths.test.ts),
 * and fails when a path is listed without a test, or when the platform (Node's in the
 * unit test, Chromium's and Firefox's in test/e2e/page-hooks.test.ts) offers a way to read
 * a body, a `responseType` or a `binaryType` that is not listed.
 *
 * - `guarded`: the page reads the guarded answer (redacted, blocked) and nothing else;
 * - `refused`: the page gets a network error and the person a notice (the answer cannot
 *   be guarded on that path: see xhr-hook.ts on synchronous requests);
 * - `native`: the browser's own, because no chat answer can be read that way (the reason
 *   is in the test);
 * - `reported`: the browser's own, because it may be no answer and holds no text to
 *   guard, but never in silence: the person gets a notice and the audit log a record
 *   (src/content/unguarded-reports.ts).
 *
 * fetch: every reading method of a Response, and of its body, reads the one body stream
 * the fetch hook replaced (guarded-response.ts), clones included (fetch-hook.ts).
 *
 * Not loaded in the page: nothing in the MAIN-world script imports it.
 */

export type ReadingVerdict = 'guarded' | 'refused' | 'native' | 'reported';

export const READING_PATHS = {
  'fetch: text()': 'guarded',
  'fetch: json()': 'guarded',
  'fetch: arrayBuffer()': 'guarded',
  'fetch: blob()': 'guarded',
  'fetch: bytes()': 'guarded',
  'fetch: formData()': 'guarded',
  // Chromium 156: the body as a stream of text.
  'fetch: textStream()': 'guarded',
  'fetch: body.getReader()': 'guarded',
  'fetch: body.getReader({ mode: "byob" })': 'guarded',
  'fetch: body.tee()': 'guarded',
  'fetch: body.pipeTo()': 'guarded',
  'fetch: body.pipeThrough()': 'guarded',
  'fetch: body.values()': 'guarded',
  'fetch: for await (… of body)': 'guarded',
  'fetch: clone()': 'guarded',
  'xhr: responseType ""': 'guarded',
  'xhr: responseType "text"': 'guarded',
  'xhr: responseType "json"': 'guarded',
  'xhr: responseType "arraybuffer"': 'guarded',
  'xhr: responseType "blob"': 'guarded',
  'xhr: responseType "document"': 'native',
  'xhr: synchronous': 'refused',
  'event-source: message events': 'guarded',
  'event-source: named events': 'guarded',
  'event-source: across a reconnection': 'guarded',
  // A stream no adapter claims: the generic adapter, from its first event (event-source-hook.ts).
  'event-source: events in no known format': 'guarded',
  'web-socket: text frames': 'guarded',
  'web-socket: binary frames, binaryType "blob"': 'guarded',
  'web-socket: binary frames, binaryType "arraybuffer"': 'guarded',
  // JSON answers no socket format claims (OpenAI-style deltas, or any JSON on a socket the
  // page sent a chat request on): the generic adapter (socket-json-guard.ts).
  'web-socket: JSON text frames in no socket format': 'guarded',
  // No text in them: reported as undecodable, and the socket is closed (web-socket-hook.ts).
  'web-socket: binary frames that are not UTF-8, on a chat socket': 'refused',
  // It may be no answer (an image): it passes, reported once per socket (web-socket-hook.ts).
  'web-socket: binary frames that are not UTF-8, on a socket with no chat sign': 'reported',
} as const satisfies Record<string, ReadingVerdict>;

export type ReadingPath = keyof typeof READING_PATHS;
