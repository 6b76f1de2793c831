/**
 * The demo's "attacker": a second loopback server on its own port (so its origin
 * and host differ from the chat's) that answers every request with a 1×1 GIF and
 * counts hits. A Markdown image in an answer that points here is how data would
 * leave the page (DESIGN.md §1, exfiltration); with the guard on, the count stays 0.
 *
 * It keeps the path and query of each hit so a test can show what would have
 * leaked; the mock data is synthetic and nothing leaves the machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Attacker {
  /** Base URL with `localhost` as host (a different host from the chat's 127.0.0.1). */
  url: string;
  port: number;
  /** Requests received so far. */
  hits(): number;
  /** Path and query of each request, oldest first (the last 100). */
  log(): string[];
  close(): Promise<void>;
}

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const MAX_LOG = 100;

export async function startAttacker(port = 0): Promise<Attacker> {
  const log: string[] = [];
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    log.push(req.url ?? '');
    if (log.length > MAX_LOG) log.shift();
    res.writeHead(200, {
      'content-type': 'image/gif',
      'content-length': PIXEL.length,
      'cache-control': 'no-store',
    });
    res.end(PIXEL);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${actual}`,
    port: actual,
    hits: () => hits,
    log: () => [...log],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
