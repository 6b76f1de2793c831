/**
 * The handshake logic with fake event targets and ports (real ones: e2e,
 * test/e2e/bridge.test.ts). A fake target dispatches synchronously like a DOM
 * `window`, and `dispatchEvent` returns false when a listener cancelled the event.
 */
import { describe, expect, it } from 'vitest';
import {
  startHandshake,
  type HandshakeDeps,
  type HandshakeEventTarget,
  type HandshakeSide,
} from '../../../src/content/page-channel-handshake.ts';
import { HANDSHAKE_EVENT } from '../../../src/protocol/page-channel.ts';

interface FakePort {
  channel: number;
  end: 'keep' | 'give';
}

class OfferEvent extends Event {
  constructor(
    type: string,
    readonly port: FakePort | undefined,
  ) {
    super(type, { cancelable: true });
  }
}

class FakeWindow implements HandshakeEventTarget {
  readonly listeners = new Map<string, Set<(event: Event) => void>>();
  addEventListener(type: string, listener: (event: Event) => void): void {
    let set = this.listeners.get(type);
    if (set === undefined) this.listeners.set(type, (set = new Set()));
    set.add(listener);
  }
  removeEventListener(type: string, listener: (event: Event) => void): void {
    this.listeners.get(type)?.delete(listener);
  }
  dispatchEvent(event: Event): boolean {
    for (const listener of [...(this.listeners.get(event.type) ?? [])]) listener(event);
    return !event.defaultPrevented;
  }
  get listening(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}

let channels = 0;

function deps(win: FakeWindow, deadlines: (() => void)[]): HandshakeDeps<FakePort> {
  return {
    target: win,
    newChannel: () => {
      const channel = ++channels;
      return { keep: { channel, end: 'keep' }, give: { channel, end: 'give' } };
    },
    newOffer: (type, port) => new OfferEvent(type, port),
    portOf: (event) => (event instanceof OfferEvent ? event.port : undefined),
    deadline: (giveUp) => {
      deadlines.push(giveUp);
      return () => {
        const i = deadlines.indexOf(giveUp);
        if (i >= 0) deadlines.splice(i, 1);
      };
    },
  };
}

function side(win: FakeWindow, name: HandshakeSide, deadlines: (() => void)[]) {
  const opened: FakePort[] = [];
  let gaveUp = false;
  const state = startHandshake(
    name,
    deps(win, deadlines),
    (port) => opened.push(port),
    () => {
      gaveUp = true;
    },
  );
  return { opened, state, gaveUp: () => gaveUp };
}

describe.each([
  ['main', 'bridge'],
  ['bridge', 'main'],
] as const)('handshake: %s runs first, then %s', (first, second) => {
  it('gives both sides the two ends of one channel, synchronously', () => {
    const win = new FakeWindow();
    const deadlines: (() => void)[] = [];
    const a = side(win, first, deadlines);
    expect(a.state().state).toBe('waiting');
    expect(a.opened).toEqual([]);
    const b = side(win, second, deadlines);
    expect(a.opened).toHaveLength(1);
    expect(b.opened).toHaveLength(1);
    const [pa, pb] = [a.opened[0] as FakePort, b.opened[0] as FakePort];
    expect(pa.channel).toBe(pb.channel);
    expect(new Set([pa.end, pb.end])).toEqual(new Set(['keep', 'give']));
    expect(a.state()).toEqual({ state: 'open', port: pa });
    expect(b.state()).toEqual({ state: 'open', port: pb });
  });

  it('leaves no listener and no pending deadline behind', () => {
    const win = new FakeWindow();
    const deadlines: (() => void)[] = [];
    side(win, first, deadlines);
    expect(win.listening).toBe(1);
    expect(deadlines).toHaveLength(1);
    side(win, second, deadlines);
    expect(win.listening).toBe(0);
    expect(deadlines).toHaveLength(0);
  });

  it('ignores offers forged afterwards (a page script dispatching either event)', () => {
    const win = new FakeWindow();
    const deadlines: (() => void)[] = [];
    const a = side(win, first, deadlines);
    const b = side(win, second, deadlines);
    for (const type of Object.values(HANDSHAKE_EVENT)) {
      const forged = new OfferEvent(type, { channel: -1, end: 'give' });
      expect(win.dispatchEvent(forged)).toBe(true);
    }
    expect(a.opened).toHaveLength(1);
    expect(b.opened).toHaveLength(1);
  });
});

describe('handshake: no partner', () => {
  it('gives up at the deadline and then ignores any offer', () => {
    const win = new FakeWindow();
    const deadlines: (() => void)[] = [];
    const bridge = side(win, 'bridge', deadlines);
    expect(deadlines).toHaveLength(1);
    (deadlines[0] as () => void)();
    expect(bridge.gaveUp()).toBe(true);
    expect(bridge.state()).toEqual({ state: 'gave-up' });
    expect(win.listening).toBe(0);
    // A page script now dispatching a MAIN-world offer with its own port gets nothing.
    const forged = new OfferEvent(HANDSHAKE_EVENT.main, { channel: -1, end: 'give' });
    expect(win.dispatchEvent(forged)).toBe(true);
    expect(bridge.opened).toEqual([]);
  });

  it('ignores an offer without a port and keeps waiting for the real one', () => {
    const win = new FakeWindow();
    const deadlines: (() => void)[] = [];
    const bridge = side(win, 'bridge', deadlines);
    expect(win.dispatchEvent(new OfferEvent(HANDSHAKE_EVENT.main, undefined))).toBe(true);
    expect(win.dispatchEvent(new Event(HANDSHAKE_EVENT.main, { cancelable: true }))).toBe(true);
    expect(bridge.opened).toEqual([]);
    const main = side(win, 'main', deadlines);
    expect(bridge.opened).toHaveLength(1);
    expect(main.opened).toHaveLength(1);
  });

  it('a side that runs alone never takes its own offer', () => {
    const win = new FakeWindow();
    const main = side(win, 'main', []);
    expect(main.opened).toEqual([]);
    expect(main.state().state).toBe('waiting');
  });
});
