/**
 * Stand-ins for the browser's EventSource and WebSocket, for Node: members the hooks read
 * are accessors on the prototype, `on*` handler properties register a listener when first
 * set, and each call of the factory gives a fresh class (and a fresh EventTarget base, so
 * a hook patching `EventTarget.prototype` touches only that realm). The test drives the
 * network side (`emit`, `drop`, `giveUp`, `closeFromServer`).
 */

export class FakeCloseEvent extends Event {
  readonly code: number;
  readonly reason: string;
  readonly wasClean: boolean;
  constructor(type: string, init: CloseEventInit = {}) {
    super(type, init);
    this.code = init.code ?? 0;
    this.reason = init.reason ?? '';
    this.wasClean = init.wasClean ?? false;
  }
}

type Handler = ((this: EventTarget, event: Event) => unknown) | null;

function defineHandlers(proto: object, types: readonly string[]): void {
  for (const type of types) {
    const slots = new WeakMap<EventTarget, { current: Handler }>();
    Object.defineProperty(proto, `on${type}`, {
      get(this: EventTarget) {
        return slots.get(this)?.current ?? null;
      },
      set(this: EventTarget, handler: Handler) {
        let slot = slots.get(this);
        if (!slot) {
          const created = { current: handler };
          slot = created;
          slots.set(this, created);
          this.addEventListener(type, (event) => created.current?.call(this, event));
        }
        slot.current = handler;
      },
      enumerable: true,
      configurable: true,
    });
  }
}

function defineGetters(proto: object, getters: Record<string, (self: never) => unknown>): void {
  for (const [key, read] of Object.entries(getters)) {
    Object.defineProperty(proto, key, {
      get(this: never) {
        return read(this);
      },
      enumerable: true,
      configurable: true,
    });
  }
}

export function createFakeEventSourceRealm() {
  class RealmEventTarget extends EventTarget {}

  class FakeEventSource extends RealmEventTarget {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSED = 2;
    declare readonly url: string;
    declare readonly readyState: number;
    declare onmessage: Handler;
    declare onerror: Handler;
    declare onopen: Handler;
    _url: string;
    _state = 0;

    constructor(url: string | URL) {
      super();
      this._url = new URL(String(url), 'http://127.0.0.1:8080/chat/').href;
    }

    close(): void {
      this._state = 2;
    }

    /** The server sent one event (already parsed, as the browser does). */
    emit(type: string, data: string, lastEventId = ''): void {
      if (this._state === 2) return;
      this._state = 1;
      this.dispatchEvent(
        new MessageEvent(type, { data, lastEventId, origin: 'http://127.0.0.1:8080' }),
      );
    }

    /** The connection dropped; the browser will reconnect. */
    drop(): void {
      if (this._state === 2) return;
      this._state = 0;
      this.dispatchEvent(new Event('error'));
    }

    /** The connection failed for good (a fatal error): the browser gives up. */
    giveUp(): void {
      if (this._state === 2) return;
      this._state = 2;
      this.dispatchEvent(new Event('error'));
    }
  }
  defineGetters(FakeEventSource.prototype, {
    url: (self: FakeEventSource) => self._url,
    readyState: (self: FakeEventSource) => self._state,
  });
  defineHandlers(FakeEventSource.prototype, ['message', 'error', 'open']);

  class FakeWebSocket extends RealmEventTarget {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    declare readonly url: string;
    declare readonly readyState: number;
    declare binaryType: BinaryType;
    declare onmessage: Handler;
    declare onclose: Handler;
    _url: string;
    _state = 1;
    _binaryType: BinaryType = 'blob';
    sent: unknown[] = [];
    closedWith: number | undefined;

    constructor(url: string | URL, _protocols?: string | string[]) {
      super();
      this._url = new URL(String(url), 'ws://127.0.0.1:8080/').href;
    }

    send(data: unknown): void {
      this.sent.push(data);
    }

    close(code?: number): void {
      this.closedWith = code ?? 1005;
      this._state = 2;
    }

    /** The server sent one message. */
    emit(data: unknown): void {
      this.dispatchEvent(new MessageEvent('message', { data, origin: 'ws://127.0.0.1:8080' }));
    }

    /** The server sent one binary message: an ArrayBuffer or a Blob, as `binaryType` says. */
    emitBinary(bytes: Uint8Array): void {
      const copy = bytes.slice().buffer;
      this.emit(this._binaryType === 'blob' ? new Blob([copy]) : copy);
    }

    closeFromServer(code = 1000, reason = ''): void {
      this._state = 3;
      this.dispatchEvent(new FakeCloseEvent('close', { code, reason, wasClean: true }));
    }
  }
  defineGetters(FakeWebSocket.prototype, {
    url: (self: FakeWebSocket) => self._url,
    readyState: (self: FakeWebSocket) => self._state,
  });
  Object.defineProperty(FakeWebSocket.prototype, 'binaryType', {
    get(this: FakeWebSocket) {
      return this._binaryType;
    },
    // As WebIDL enums: an unknown value is ignored.
    set(this: FakeWebSocket, value: BinaryType) {
      if (value === 'blob' || value === 'arraybuffer') this._binaryType = value;
    },
    enumerable: true,
    configurable: true,
  });
  defineHandlers(FakeWebSocket.prototype, ['message', 'close', 'open', 'error']);

  return {
    EventTarget: RealmEventTarget,
    EventSource: FakeEventSource,
    WebSocket: FakeWebSocket,
  };
}
