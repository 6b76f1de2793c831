/**
 * The MAIN world recognises responses and requests with the recognisers alone
 * (wire-recognisers.ts, requests/request-recognisers.ts); the ISOLATED world
 * runs the adapter of the same id or name. Both must agree, for every adapter,
 * on what they claim and in which order.
 */
import { describe, expect, it } from 'vitest';
import {
  adapterById,
  detectAdapter,
  wireAdapters,
} from '../../../src/core/wire/adapter-registry.ts';
import {
  recognisers,
  recogniseResponse,
  wireRecognisers,
} from '../../../src/core/wire/wire-recognisers.ts';
import {
  detectRequestAdapter,
  requestAdapters,
} from '../../../src/core/wire/requests/request-registry.ts';
import {
  recogniseRequest,
  requestRecognisersInOrder,
} from '../../../src/core/wire/requests/request-recognisers.ts';
import type { WireProbe } from '../../../src/core/wire/wire-event.ts';

const probes: WireProbe[] = [
  {
    url: 'https://chatgpt.com/backend-api/f/conversation',
    contentType: 'text/event-stream',
    head: '',
  },
  { url: 'https://x.example/v1/chat/completions', contentType: 'text/event-stream', head: '' },
  { url: 'https://x.example/v1/messages', contentType: 'application/json', head: '{}' },
  { url: 'http://127.0.0.1:11434/api/chat', contentType: 'application/x-ndjson', head: '' },
  { url: 'https://x.example/other', contentType: 'text/html', head: '<html>' },
];

describe('wire recognisers', () => {
  it('have unique ids, and every one has its adapter', () => {
    const ids = Object.values(recognisers).map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const recogniser of Object.values(recognisers)) {
      const adapter = adapterById(recogniser.id);
      expect(adapter?.detect).toBe(recogniser.detect);
      expect(adapter?.format).toBe(recogniser.format);
      expect(adapter?.framing).toBe(recogniser.framing);
    }
  });

  it('order the adapters: the page and the guard pick the same one for any probe', () => {
    expect(wireAdapters.map((a) => a.id)).toEqual(wireRecognisers.map((r) => r.id));
    for (const probe of probes) {
      expect(detectAdapter(probe)?.id).toBe(recogniseResponse(probe)?.id);
    }
    expect(recogniseResponse(probes[4] as WireProbe)).toBeUndefined();
  });

  it('keep the socket recogniser out of the HTTP order', () => {
    expect(wireRecognisers).not.toContain(recognisers.openWebUiSocket);
    expect(adapterById('open-webui-socket')).toBeDefined();
    expect(adapterById('nope')).toBeUndefined();
  });
});

describe('request recognisers', () => {
  it('have unique names and order the request adapters, which share their detect', () => {
    const names = requestRecognisersInOrder.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(requestAdapters.map((a) => a.name)).toEqual(names);
    for (const [i, adapter] of requestAdapters.entries()) {
      expect(adapter.detect).toBe(requestRecognisersInOrder[i]?.detect);
    }
  });

  it('the page and the guard pick the same request adapter', () => {
    const requests = [
      { url: 'https://x.example/v1/chat/completions', method: 'POST', contentType: '' },
      { url: 'https://x.example/v1/chat/completions', method: 'GET', contentType: '' },
      { url: 'https://chatgpt.com/backend-api/f/conversation', method: 'POST', contentType: '' },
      { url: 'https://x.example/upload', method: 'POST', contentType: '' },
    ];
    for (const request of requests) {
      expect(recogniseRequest(request)?.name).toBe(detectRequestAdapter(request)?.name);
    }
    expect(recogniseRequest(requests[3] as (typeof requests)[number])).toBeUndefined();
  });
});
