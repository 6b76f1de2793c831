/**
 * `csg replay` of a WebSocket entry in a Chrome DevTools HAR (issue 20 §3):
 * Copilot's chat socket (WIRE-FORMATS-2.md §4.2: `setOptions` and `send` client
 * frames, `appendText`/`partCompleted`/`titleUpdate`/`done` server frames) as
 * DevTools records it in `_webSocketMessages`. The fixtures
 * (test/fixtures/replay/copilot-socket*.har) are written from §4.2's frames.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../support/wire-harness.ts';
import { runCsg } from './run-csg.ts';
import { TempFiles } from './temp-files.ts';

const fixturePath = (name: string) =>
  fileURLToPath(new URL(`../../fixtures/replay/${name}`, import.meta.url));
const SECRET_HAR = fixturePath('copilot-socket.har');
const BENIGN_HAR = fixturePath('copilot-socket-benign.har');

interface Frame {
  type: string;
  time: number;
  opcode: number;
  data: string;
}
interface Har {
  log: { entries: { _webSocketMessages: Frame[] }[] };
}

const framesOf = (text: string, entry: number): Frame[] => {
  const frames = (JSON.parse(text) as Har).log.entries[entry]?._webSocketMessages;
  if (frames === undefined) throw new Error(`no entry ${entry}`);
  return frames;
};

// Each case starts the real launcher, which may run from source when the CLI build is stale.
describe('csg replay: a WebSocket entry of a DevTools HAR', { timeout: 60_000 }, () => {
  const temp = new TempFiles();
  afterAll(() => temp.remove());

  it('guards the received frames and writes them back in the same structure', async () => {
    const run = await runCsg(['replay', SECRET_HAR]);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/unguarded/);
    const frames = framesOf(run.out, 0);
    const all = frames.map((f) => f.data).join('\n');
    expect(all).not.toMatch(/EXAMPLEexamp|collector\.example\.net\/p/);
    expect(all).toContain('[redacted:github-pat]');
    for (const frame of frames) {
      expect(Object.keys(frame).sort()).toEqual(['data', 'opcode', 'time', 'type']);
      expect(JSON.parse(frame.data)).toHaveProperty('event');
    }
    // The client's frames are recorded as sent, in their place.
    const sends = (text: string) => framesOf(text, 0).filter((f) => f.type === 'send');
    expect(sends(run.out)).toEqual(sends(readFileSync(SECRET_HAR, 'utf8')));
    // The answer still ends the way Copilot ends one.
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toEqual({
      event: 'done',
      messageId: 'm-bot-1',
    });
  });

  it('leaves a socket with nothing to guard as it was, and the HAR byte for byte', async () => {
    const run = await runCsg(['replay', BENIGN_HAR]);
    expect(run.code).toBe(0);
    expect(run.stdout.equals(readFileSync(BENIGN_HAR))).toBe(true);
    const mixed = await runCsg(['replay', SECRET_HAR]);
    expect(framesOf(mixed.out, 1)).toEqual(framesOf(readFileSync(SECRET_HAR, 'utf8'), 1));
  });

  it('--compare: each frame is a unit, and the output says chunking within one does not apply', async () => {
    const run = await runCsg(['replay', SECRET_HAR, '--compare']);
    expect(run.code).toBe(0);
    const lines = run.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^stream 0 copilot \(WebSocket\): 9 received frames, each one unit; chunking within a frame does not apply to sockets \([1-9]\d* events\)$/,
    );
    expect(lines[1]).toMatch(/^stream 1 copilot \(WebSocket\): 6 received frames.*\(0 events\)$/);
  });

  it('a socket no format claims is listed as unguarded, not passed as safe', async () => {
    const har = JSON.parse(readFileSync(BENIGN_HAR, 'utf8')) as {
      log: { entries: { request: { url: string } }[] };
    };
    const entry = har.log.entries[0];
    if (entry === undefined) throw new Error('fixture has no entry');
    entry.request.url = 'wss://chat.example.org/socket';
    const path = temp.writeJson('unknown-socket.har', har);
    const run = await runCsg(['replay', path]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('csg: unguarded: GET wss://chat.example.org/socket');
  });

  it('--events records the socket guard events under the entry index', async () => {
    const events = temp.path('socket-events.jsonl');
    const run = await runCsg(['replay', SECRET_HAR, '--events', events]);
    expect(run.code).toBe(0);
    const records = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { stream: number; channel: string });
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.stream === 0)).toBe(true);
    expect(readFileSync(events, 'utf8')).not.toMatch(/EXAMPLEexamp/);
  });

  it("guards an Open WebUI Socket.IO entry too (WIRE-FORMATS.md §6.1, the wire fixture's frames)", async () => {
    const received = fixture('open-webui/socket-secret.txt').split('\n').filter(Boolean);
    const frames = received.map((data, i) => ({
      type: 'receive',
      time: 1 + i / 10,
      opcode: 1,
      data,
    }));
    const url = 'wss://webui.example/ws/socket.io/?EIO=4&transport=websocket';
    const har = {
      log: {
        version: '1.2',
        entries: [
          {
            request: { method: 'GET', url, headers: [] },
            response: { status: 101, headers: [], content: { size: 0, mimeType: 'x-unknown' } },
            _webSocketMessages: frames,
          },
        ],
      },
    };
    const path = temp.writeJson('open-webui-socket.har', har);
    const run = await runCsg(['replay', path]);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/unguarded/);
    const all = framesOf(run.out, 0)
      .map((f) => f.data)
      .join('\n');
    expect(all).toContain('[redacted:github-pat]');
    expect(all).not.toMatch(/ghp_EXAMPLE/);
    const compare = await runCsg(['replay', path, '--compare']);
    expect(compare.out).toMatch(
      new RegExp(
        `^stream 0 open-webui \\(WebSocket\\): ${received.length} received frames, each one unit`,
      ),
    );
  });
});
