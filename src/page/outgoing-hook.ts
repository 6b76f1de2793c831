/**
 * The send side of the MAIN-world hooks (issue 5): the fetch hook asks this
 * module, before a request leaves, whether a request adapter recognises it;
 * if so, the body is read from a copy, guarded (outgoing-request-guard.ts)
 * and the request to send is built anew — the page's own Request, init and
 * body objects are never modified.
 *
 * A refused request (blocked, cancelled by the person, or the guard failed)
 * makes the page's fetch reject with a TypeError, the way a network error
 * does, so the page takes its usual failure path and never retries into an
 * unguarded copy. Fail closed: a body that cannot be read (a stream) on a
 * recognised request is refused too.
 *
 * The round trips to the bridge (`outgoing-lookup`, `confirm-send`) are keyed
 * by a random request id; an answer that never comes leaves the lookup empty
 * after LOOKUP_TIMEOUT_MS (no marks: DLP and projection still run) but holds a
 * confirmation for as long as the person takes (a send is never released by
 * time alone).
 *
 * No extension APIs here.
 */
import type { OutgoingFinding } from '../core/outgoing/outgoing-dlp.ts';
import { detectRequestAdapter } from '../core/wire/requests/request-registry.ts';
import type { RequestAdapter } from '../core/wire/requests/request-text.ts';
import type { BridgeToPage, PageGuardEvent, PageToBridge } from '../protocol/page-channel.ts';
import {
  type OutgoingMarks,
  type OutgoingSetup,
  guardOutgoingRequestBody,
} from './outgoing-request-guard.ts';

export const LOOKUP_TIMEOUT_MS = 3_000;

type FetchArgs = [input: RequestInfo | URL, init?: RequestInit];

export interface OutgoingHookDeps {
  setup(): OutgoingSetup;
  /**
   * Resolves once `setup` can answer (the page config has arrived); a request
   * waits for it, and is refused when it rejects (fail closed). Absent: ready now.
   */
  ready?(): Promise<unknown>;
  send(message: PageToBridge): void;
  /** Whether the private channel to the bridge is up (no lookup is asked otherwise). */
  connected(): boolean;
  newId(): string;
  setTimeout(callback: () => void, ms: number): unknown;
  /** The document's base URL (what fetch and XHR resolve relative URLs against). */
  baseUrl(): string;
}

export interface OutgoingHook {
  /**
   * For a request a request adapter recognises: a promise of the arguments to
   * send (a new Request), rejecting with a TypeError when the send is refused.
   * Undefined for every other request (sent untouched, without delay).
   */
  prepare(input: RequestInfo | URL, init: RequestInit | undefined): Promise<FetchArgs> | undefined;
  /** Takes the bridge's answers (`outgoing-lookup-result`, `send-decision`). */
  receive(message: BridgeToPage): void;
}

function headersOf(input: RequestInfo | URL, init: RequestInit | undefined): Headers {
  if (init?.headers !== undefined) return new Headers(init.headers);
  if (input instanceof Request) return input.headers;
  return new Headers();
}

function methodOf(input: RequestInfo | URL, init: RequestInit | undefined): string {
  if (init?.method !== undefined) return String(init.method).toUpperCase();
  if (input instanceof Request) return input.method.toUpperCase();
  return 'GET';
}

function urlOf(input: RequestInfo | URL, base: string): string | undefined {
  try {
    if (input instanceof Request) return input.url;
    return new URL(input instanceof URL ? input.href : String(input), base).href;
  } catch {
    return undefined;
  }
}

/** The body text the request would send, read from copies; throws when it cannot be read. */
async function bodyText(input: RequestInfo | URL, init: RequestInit | undefined): Promise<string> {
  const body = init?.body;
  if (body !== undefined && body !== null) {
    if (typeof body === 'string') return body;
    // A stream can be read only once: reading it would take it from the page.
    if (body instanceof ReadableStream) throw new TypeError('stream body');
    return new Response(body).text();
  }
  if (input instanceof Request) return input.clone().text();
  return '';
}

function refusal(): TypeError {
  return new TypeError('Failed to fetch');
}

export function createOutgoingHook(deps: OutgoingHookDeps): OutgoingHook {
  const lookups = new Map<string, (marks: OutgoingMarks) => void>();
  const decisions = new Map<string, (decision: 'send' | 'cancel') => void>();

  const lookup = (newTexts: string[], history: string[]): Promise<OutgoingMarks> => {
    const none: OutgoingMarks = { pasted: [], referenceOnly: [] };
    if (!deps.connected()) return Promise.resolve(none);
    const requestId = deps.newId();
    return new Promise((resolve) => {
      lookups.set(requestId, resolve);
      deps.setTimeout(() => {
        if (lookups.delete(requestId)) resolve(none);
      }, LOOKUP_TIMEOUT_MS);
      deps.send({ v: 1, type: 'outgoing-lookup', requestId, texts: newTexts, history });
    });
  };

  const confirm = (findings: readonly OutgoingFinding[]): Promise<'send' | 'cancel'> => {
    // Without the bridge nobody can be asked: holding forever would hang the page, so cancel.
    if (!deps.connected()) return Promise.resolve('cancel');
    const requestId = deps.newId();
    return new Promise((resolve) => {
      decisions.set(requestId, resolve);
      deps.send({
        v: 1,
        type: 'confirm-send',
        requestId,
        findings: findings.map((f) => ({ rule: f.rule, kind: f.kind, matched: f.text })),
      });
    });
  };

  const guard = async (
    adapter: RequestAdapter,
    url: string,
    input: RequestInfo | URL,
    init: RequestInit | undefined,
  ): Promise<FetchArgs> => {
    const streamId = deps.newId();
    let reported = false;
    const report = (format: string, events: PageGuardEvent[]) => {
      reported = true;
      deps.send({
        v: 1,
        type: 'guard-events',
        stream: { streamId, direction: 'out', format, conversationId: '', turnId: '' },
        events,
      });
    };
    let outcome;
    try {
      const text = await bodyText(input, init);
      await deps.ready?.();
      outcome = await guardOutgoingRequestBody(adapter, text, {
        setup: deps.setup,
        lookup,
        confirm,
        report,
      });
    } catch {
      report(adapter.name, [
        { type: 'error', message: 'request body unreadable', at: 0, pack: 'outgoing' },
      ]);
      outcome = { send: false as const, reason: 'failed' as const };
    }
    if (reported) {
      const end = outcome.send ? 'complete' : outcome.reason === 'failed' ? 'failed' : 'blocked';
      deps.send({ v: 1, type: 'stream-end', streamId, outcome: end });
    }
    if (!outcome.send) throw refusal();
    // A new Request: the page's input and init keep what the page put in them (its
    // Request is cloned, so even its body stays unread).
    const base = new Request(input instanceof Request ? input.clone() : url, init);
    return [new Request(base, { body: outcome.body })];
  };

  return {
    prepare(input, init) {
      let adapter: RequestAdapter | undefined;
      let url: string | undefined;
      try {
        const method = methodOf(input, init);
        if (method === 'GET' || method === 'HEAD') return undefined;
        url = urlOf(input, deps.baseUrl());
        if (url === undefined) return undefined;
        const contentType = headersOf(input, init).get('content-type') ?? '';
        adapter = detectRequestAdapter({ url, method, contentType });
      } catch {
        return undefined;
      }
      if (adapter === undefined || url === undefined) return undefined;
      // The resolved URL (against the document's base, as fetch and XHR resolve it).
      return guard(adapter, url, input, init);
    },
    receive(message) {
      if (message.type === 'outgoing-lookup-result') {
        const resolve = lookups.get(message.requestId);
        if (resolve === undefined) return;
        lookups.delete(message.requestId);
        resolve({ pasted: message.pasted, referenceOnly: message.referenceOnly });
      } else if (message.type === 'send-decision') {
        const resolve = decisions.get(message.requestId);
        if (resolve === undefined) return;
        decisions.delete(message.requestId);
        resolve(message.decision);
      }
    },
  };
}
