/** A request's body as text, refused past `maxBytes` (the mock servers' only input bound). */
import type { IncomingMessage } from 'node:http';

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > maxBytes) throw new Error('request body too large');
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}
