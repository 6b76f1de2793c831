/**
 * `csg replay` on Kimi's Connect envelopes (issue 20 §3; WIRE-FORMATS-2.md
 * §2.3): the byte-level path. A raw capture is replayed from its bytes (its
 * 5-byte headers hold bytes that are not UTF-8), chunked equals whole, and in
 * a HAR the base64 body DevTools stores for it is decoded to bytes and
 * re-encoded with correct envelope lengths.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { kimiWeb } from '../../../src/core/wire/adapters/kimi-web.ts';
import { byteStringOf, bytesOfByteString } from '../../../src/core/wire/byte-string.ts';
import { replayBody } from '../../../src/core/wire/replay-body.ts';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;
const URL_KIMI = 'https://www.kimi.com/apiv2/kimi.gateway.chat.v1.ChatService/Chat';
const fixture = (name: string): string =>
  new URL(`../../fixtures/wire/kimi-web/${name}`, import.meta.url).pathname;
const secret = readFileSync(fixture('chat-secret-split.connect'));
const benign = readFileSync(fixture('chat-benign.connect'));
/** The library's replay of the bytes: the reference for the CLI's output. */
const expected = Buffer.from(
  bytesOfByteString(replayBody(kimiWeb, getCorePack(), [byteStringOf(secret)]).output),
);

describe('csg replay: Kimi Connect envelopes', () => {
  it(
    'replays a raw capture from its bytes; chunked = whole; an unchanged body is byte for byte',
    async () => {
      const compare = await runCsg([
        'replay',
        fixture('chat-secret-split.connect'),
        '--url',
        URL_KIMI,
        '--compare',
      ]);
      expect(compare.out).toMatch(/^stream 0 kimi-web: chunked = whole \(\d+ events\)\n$/);
      const run = await runCsg([
        'replay',
        fixture('chat-secret-split.connect'),
        '--format',
        'kimi-web',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout.equals(expected)).toBe(true);
      const same = await runCsg(['replay', fixture('chat-benign.connect'), '--url', URL_KIMI]);
      expect(same.stdout.equals(benign)).toBe(true);
    },
    T,
  );

  it(
    'in a HAR, a base64 body is replayed as bytes and stored back base64 with its size',
    async () => {
      const har = temp.writeJson('kimi.har', {
        log: {
          entries: [
            {
              request: { method: 'POST', url: URL_KIMI },
              response: {
                status: 200,
                headers: [{ name: 'Content-Type', value: 'application/connect+json' }],
                content: {
                  size: secret.length,
                  mimeType: 'application/connect+json',
                  text: secret.toString('base64'),
                  encoding: 'base64',
                },
              },
            },
          ],
        },
      });
      const run = await runCsg(['replay', har]);
      const out = JSON.parse(run.out) as {
        log: { entries: { response: { content: { size: number; text: string } } }[] };
      };
      const content = out.log.entries[0]?.response.content;
      expect(Buffer.from(content?.text ?? '', 'base64').equals(expected)).toBe(true);
      expect(content?.size).toBe(expected.length);
      expect(run.stderr).not.toMatch(/unguarded/);
    },
    T,
  );
});
