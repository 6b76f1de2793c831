/**
 * What every mock chat page gets, as real chat sites serve theirs: a strict,
 * nonce-based CSP (the extension's scripts must work under it, and no answer can
 * make a page load an external image or script), and one shared SSE reader.
 *
 * A page's inline scripts carry `nonce="{{nonce}}"`; a page that reads event
 * streams by hand writes a comment starting `/* {{sse-reader}}` where the reader's
 * function goes (a comment, so the page stays valid for the formatter).
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * A small SSE reader, as the pages' own code (the WHATWG rules clients follow):
 * events end at a blank line; `data` lines join with "\n"; one leading space after
 * the colon goes. Injected as text: the pages run it, not Node.
 */
const SSE_READER = `function sseReader(onEvent) {
  let buffer = '';
  const dispatch = (block) => {
    let name = 'message';
    const data = [];
    for (const line of block.split(/\\r\\n|\\r|\\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') name = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) onEvent(name, data.join('\\n'));
  };
  return {
    push(text) {
      buffer += text;
      for (;;) {
        const end = /\\r\\n\\r\\n|\\n\\n|\\r\\r/.exec(buffer);
        if (!end) return;
        dispatch(buffer.slice(0, end.index));
        buffer = buffer.slice(end.index + end[0].length);
      }
    },
    end() {
      if (buffer.trim() !== '') dispatch(buffer);
      buffer = '';
    },
  };
}`;

const SSE_READER_SLOT = /\/\* \{\{sse-reader\}\}[^*]*\*\//;

/**
 * Sends `template` with a fresh nonce. `directives` add to the policy every page
 * has (self only, scripts by nonce, no <base>), e.g. `connect-src` or `img-src`.
 */
export function sendNoncePage(
  res: ServerResponse,
  template: string,
  directives: readonly string[],
): void {
  const nonce = randomBytes(16).toString('base64');
  const body = template.replaceAll('{{nonce}}', nonce).replace(SSE_READER_SLOT, SSE_READER);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'content-security-policy': [
      "default-src 'self'",
      `script-src 'nonce-${nonce}'`,
      "style-src 'self' 'unsafe-inline'",
      "base-uri 'none'",
      ...directives,
    ].join('; '),
  });
  res.end(body);
}
