/** Peeking at the head of a response body without taking it from the page. */

import { describe, expect, it } from 'vitest';
import {
  BodyFailedWhilePeeked,
  HEAD_BYTES,
  headIsDecisive,
  isCandidateContentType,
  normaliseContentType,
  peekHead,
} from '../../src/page/response-peek.ts';

const encode = (s: string) => new TextEncoder().encode(s);

function streamed(parts: Uint8Array[], open = false): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        if (!open) controller.close();
      },
    }),
  );
}

describe('isCandidateContentType', () => {
  it.each([
    ['text/event-stream; charset=utf-8', true],
    ['application/x-ndjson', true],
    ['application/json', true],
    ['application/json+protobuf', true],
    ['text/plain;charset=UTF-8', true],
    ['text/html; charset=utf-8', false],
    ['image/png', false],
    ['application/octet-stream', false],
    ['', false],
  ])('%s → %s', (type, expected) => {
    expect(isCandidateContentType(normaliseContentType(type))).toBe(expected);
  });
});

describe('headIsDecisive', () => {
  it.each([
    ['text/event-stream', ': keep-alive\n\n', false],
    ['text/event-stream', 'data: {"a":1}', false],
    ['text/event-stream', 'data: {"a":1}\n', false],
    ['text/event-stream', 'data: {"a":1}\r\n', false],
    ['text/event-stream', 'data: {"a":1}\r', false],
    ['text/event-stream', 'data: {"a":1}\n\n', true],
    ['text/event-stream', ': ping\r\n\r\nevent: x\r\ndata: 1\r\nid: 2\r\n\r\n', true],
    ['text/event-stream', 'data: 1\r\rdata: 2', true],
    ['text/event-stream', 'database: 1\n\n', false],
    ['application/x-ndjson', '{"model":"x"', false],
    ['application/x-ndjson', '\n\n{"model":"x"}\n', true],
    ['application/json', '{"object":"chat.completion"}', false],
    ['text/plain', 'Hello', true],
    ['text/plain', '', false],
    ['text/plain', ')]', false],
    ['text/plain', ")]}'\n\n123\n", false],
    ['text/html', '<!doctype html>', true],
  ])('%s %j → %s', (type, head, expected) => {
    expect(headIsDecisive(type, head)).toBe(expected);
  });
});

describe('peekHead', () => {
  it('reads a clone and leaves every byte to the original', async () => {
    const response = streamed([encode('data: 1\n\n'), encode('data: 2\n\n')]);
    const peeked = await peekHead(response, () => true);
    expect(peeked).toEqual({ head: 'data: 1\n\n', ended: false });
    expect(response.bodyUsed).toBe(false);
    expect(await response.text()).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('reads on until enough, the limit or the end', async () => {
    const parts = ['ab', 'cd', 'ef'].map(encode);
    expect(await peekHead(streamed(parts), (head) => head.endsWith('cd'))).toEqual({
      head: 'abcd',
      ended: false,
    });
    expect(await peekHead(streamed(parts), () => false)).toEqual({ head: 'abcdef', ended: true });
    const big = encode('x'.repeat(HEAD_BYTES * 3));
    const limited = await peekHead(streamed([big]), () => false);
    expect(limited.head.length).toBe(HEAD_BYTES);
    expect(limited.ended).toBe(false);
  });

  it('decodes characters split across chunks', async () => {
    const bytes = encode('“数据” 😀');
    const parts = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect((await peekHead(streamed(parts), () => false)).head).toBe('“数据” 😀');
  });

  it('returns with what it has when the stream stays open and enough says so', async () => {
    const response = streamed([encode('data: tick\n\n')], true);
    expect((await peekHead(response, () => true)).head).toBe('data: tick\n\n');
  });

  it('tells a failing body apart from a failing callback', async () => {
    const failing = new Response(
      new ReadableStream({
        start(controller) {
          controller.error(new Error('network'));
        },
      }),
    );
    await expect(peekHead(failing, () => true)).rejects.toBeInstanceOf(BodyFailedWhilePeeked);
    const boom = new Error('callback');
    await expect(
      peekHead(streamed([encode('x')]), () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });
});
