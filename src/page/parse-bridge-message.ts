/**
 * The MAIN world's check of what the bridge sends. The bridge is ours and the
 * port is private, but the page shares this world: a message that is not
 * exactly one of ours (src/protocol/page-channel.ts) is dropped, and a body
 * or socket whose answer never comes stays held, never passes unguarded.
 */
import { PAGE_CHANNEL_VERSION, type BridgeToPage } from '../protocol/page-channel.ts';
import { assign, create, isArray, NativeUint8Array } from './intrinsics.ts';

type Fields = Record<string, unknown>;

/** Own enumerable fields only, on a prototype-less object (nothing inherited counts). */
function recordOf(value: unknown): Fields | undefined {
  if (typeof value !== 'object' || value === null || isArray(value)) return undefined;
  return assign(create(null) as Fields, value);
}

/** A copy of a list of strings (read by index: no iterator the page could replace). */
function stringList(value: unknown): string[] | undefined {
  if (!isArray(value)) return undefined;
  const copy: string[] = [];
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string') return undefined;
    copy[i] = item;
  }
  return copy;
}

/** A valid message from the bridge; undefined otherwise. */
export function parseBridgeMessage(input: unknown): BridgeToPage | undefined {
  const value = recordOf(input);
  if (!value || value.v !== PAGE_CHANNEL_VERSION) return undefined;
  const { streamId, requestId } = value;
  switch (value.type) {
    case 'guard-output': {
      const { bytes } = value;
      if (typeof streamId !== 'string' || !(bytes instanceof NativeUint8Array)) return undefined;
      return { v: 1, type: 'guard-output', streamId, bytes };
    }
    case 'guard-messages': {
      const messages = stringList(value.messages);
      if (typeof streamId !== 'string' || !messages) return undefined;
      return { v: 1, type: 'guard-messages', streamId, messages };
    }
    case 'guard-done':
    case 'guard-failed':
      return typeof streamId === 'string' ? { v: 1, type: value.type, streamId } : undefined;
    case 'request-verdict': {
      if (typeof requestId !== 'string') return undefined;
      if (value.send === false) return { v: 1, type: 'request-verdict', requestId, send: false };
      const { body } = value;
      if (value.send !== true || typeof body !== 'string') return undefined;
      return { v: 1, type: 'request-verdict', requestId, send: true, body };
    }
    case 'site-routes': {
      const routes = recordOf(value.routes);
      if (!routes) return undefined;
      for (const name in routes) if (typeof routes[name] !== 'string') return undefined;
      return { v: 1, type: 'site-routes', routes: routes as Record<string, string> };
    }
    default:
      return undefined;
  }
}
