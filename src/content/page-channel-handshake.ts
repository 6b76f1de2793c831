/**
 * Hands one MessagePort between the MAIN world (src/page) and the ISOLATED
 * bridge (src/content) at document_start, so the two talk over a channel the
 * page cannot read or forge (issue 4: never `window.postMessage`).
 *
 * Both worlds share the DOM, so an event dispatched on `window` reaches
 * listeners of both worlds, and a MessageEvent may carry ports. Each side
 * listens for the other side's event, then dispatches its own, cancelable,
 * carrying one end of a fresh MessageChannel:
 * - the side that runs first dispatches into the void (dispatchEvent returns
 *   true: nobody took the port) and keeps listening;
 * - the side that runs second dispatches; the first side's listener takes the
 *   port and calls `preventDefault()`, so the second side's `dispatchEvent`
 *   returns false synchronously: both now hold the two ends of one channel.
 * Either way both sides then remove their listeners, and nothing about the
 * channel stays observable.
 *
 * Why the page can neither see nor forge it: the scripts run at document_start,
 * before any page script, and the first side stops listening at the first moment
 * a page script could run (`closeBeforePageScripts`): before the parser runs its
 * first script it performs a microtask checkpoint, which delivers the
 * MutationObserver record of that script's insertion; DOMContentLoaded is a later
 * backstop. Verified in Chromium 156 and Firefox ESR 153 (test/e2e/bridge.test.ts),
 * with both script orders: Chromium runs the two document_start scripts in one
 * task with a microtask checkpoint between them (so a bare microtask would be too
 * early a deadline); neither browser lets a DOM mutation in between. Firefox, on
 * the first load in a content process, compiles the ISOLATED script off the main
 * thread and blocks the parser until it has run (the guard engine made that script
 * large): timer tasks do run meanwhile, so a zero-delay timer is NOT a safe
 * deadline — it closed the door before the bridge arrived — while no page script
 * can run until the parser resumes. If the partner never comes (it should always:
 * both scripts are registered together), the deadline closes the door and the
 * side works alone: the MAIN world keeps guarding with the built-in defaults.
 *
 * No extension APIs here: the MAIN world uses this module too.
 */
import { HANDSHAKE_EVENT } from '../protocol/page-channel.ts';

export type HandshakeSide = keyof typeof HANDSHAKE_EVENT;

/** The part of MessagePort the handshake hands over (real ports in browsers, fakes in tests). */
export type PortLike = object;

export interface HandshakeEventTarget {
  addEventListener(type: string, listener: (event: Event) => void, capture: boolean): void;
  removeEventListener(type: string, listener: (event: Event) => void, capture: boolean): void;
  dispatchEvent(event: Event): boolean;
}

export interface HandshakeDeps<Port extends PortLike> {
  /** Where both worlds meet: the frame's `window`. */
  target: HandshakeEventTarget;
  /** A fresh channel: `keep` stays on this side, `give` goes in the event. */
  newChannel(): { keep: Port; give: Port };
  /** A cancelable event of `type` carrying `port` (a MessageEvent with `ports`). */
  newOffer(type: string, port: Port): Event;
  /** The port an offer carries, if it carries exactly one usable port. */
  portOf(event: Event): Port | undefined;
  /**
   * Schedules `giveUp` for the first moment a page script could run; returns a
   * function that cancels it.
   */
  deadline(giveUp: () => void): () => void;
}

export type HandshakeResult<Port> =
  { state: 'open'; port: Port } | { state: 'waiting' } | { state: 'gave-up' };

/**
 * Runs this side's half of the handshake. `onOpen` is called once with this
 * side's port (synchronously when this side runs second). `onGiveUp` is called
 * when the deadline passes with no partner.
 */
export function startHandshake<Port extends PortLike>(
  side: HandshakeSide,
  deps: HandshakeDeps<Port>,
  onOpen: (port: Port) => void,
  onGiveUp: () => void = () => undefined,
): () => HandshakeResult<Port> {
  const own = HANDSHAKE_EVENT[side];
  const other = HANDSHAKE_EVENT[side === 'main' ? 'bridge' : 'main'];
  let result: HandshakeResult<Port> = { state: 'waiting' };
  let cancelDeadline: () => void = () => undefined;

  const stopListening = () => {
    deps.target.removeEventListener(other, onOffer, true);
    cancelDeadline();
  };
  const open = (port: Port) => {
    result = { state: 'open', port };
    stopListening();
    onOpen(port);
  };
  function onOffer(event: Event): void {
    if (result.state !== 'waiting') return;
    const port = deps.portOf(event);
    if (port === undefined) return;
    event.stopImmediatePropagation();
    // Tells the dispatching side, synchronously, that its port was taken.
    event.preventDefault();
    open(port);
  }

  deps.target.addEventListener(other, onOffer, true);
  const { keep, give } = deps.newChannel();
  const taken = !deps.target.dispatchEvent(deps.newOffer(own, give));
  if (taken) {
    open(keep);
  } else if (result.state === 'waiting') {
    cancelDeadline = deps.deadline(() => {
      if (result.state !== 'waiting') return;
      result = { state: 'gave-up' };
      deps.target.removeEventListener(other, onOffer, true);
      onGiveUp();
    });
  }
  return () => result;
}

/**
 * The browser deadline: the first DOM insertion under `document` (a page script
 * is inserted before it runs) or DOMContentLoaded, whichever comes first. Not a
 * timer: see the file comment (Firefox runs timers while it waits for the bridge).
 * Our own scripts only set attributes before the handshake, which the observer
 * ignores.
 */
export function closeBeforePageScripts(doc: Document): (giveUp: () => void) => () => void {
  return (giveUp) => {
    let done = false;
    const observer = new MutationObserver(() => fire());
    const cancel = () => {
      if (done) return;
      done = true;
      observer.disconnect();
      doc.removeEventListener('DOMContentLoaded', fire, true);
    };
    function fire(): void {
      if (done) return;
      cancel();
      giveUp();
    }
    observer.observe(doc, { childList: true, subtree: true });
    doc.addEventListener('DOMContentLoaded', fire, true);
    return cancel;
  };
}

/** The browser dependencies for `startHandshake`, with real MessageChannels. */
export function browserHandshakeDeps(win: Window & typeof globalThis): HandshakeDeps<MessagePort> {
  // Captured now, before any page script could replace them.
  const MessageChannelCtor = win.MessageChannel;
  const MessageEventCtor = win.MessageEvent;
  const MessagePortCtor = win.MessagePort;
  return {
    target: win,
    newChannel: () => {
      const channel = new MessageChannelCtor();
      return { keep: channel.port1, give: channel.port2 };
    },
    newOffer: (type, port) => new MessageEventCtor(type, { cancelable: true, ports: [port] }),
    portOf: (event) => {
      if (!(event instanceof MessageEventCtor)) return undefined;
      const ports = event.ports;
      const port = ports.length === 1 ? ports[0] : undefined;
      return port instanceof MessagePortCtor ? port : undefined;
    },
    deadline: closeBeforePageScripts(win.document),
  };
}
