/**
 * The send hook the fetch hook calls (src/page/outgoing-hook.ts), composed with the
 * ISOLATED world's request host (src/content/request-host.ts) as bridge.ts wires
 * them: unrecognised requests are not touched (no promise, no delay); a recognised
 * one is guarded on a copy (the page's Request and init keep their bodies), its
 * round trips to the marks and the person are matched by id, and a refusal rejects
 * like a network error (TypeError).
 */
import { describe, expect, it } from 'vitest';
import { noMarks } from '../../support/no-marks.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { hookWith } from '../../support/outgoing-pair.ts';

const URL_CHAT = 'https://chat.example/v1/chat/completions';

const chatInit = (content: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
});

describe('createOutgoingHook', () => {
  it('leaves GETs and unrecognised requests alone', () => {
    const { hook, sent } = hookWith({ answer: noMarks });
    expect(hook.prepare('https://chat.example/api/status', undefined)).toBeUndefined();
    expect(hook.prepare('/upload', { method: 'POST', body: 'x' })).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('sends a redacted copy; the page init keeps what it had', async () => {
    const token = fakeGithubToken(8);
    const { hook, sent } = hookWith({ answer: noMarks });
    const init = chatInit(`my key ${token}`);
    const original = init.body;
    const args = await hook.prepare(URL_CHAT, init);
    const request = args?.[0] as Request;
    expect(request).toBeInstanceOf(Request);
    expect(request.url).toBe(URL_CHAT);
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('application/json');
    const body = await request.text();
    expect(body).not.toContain(token);
    expect(init.body).toBe(original);
    expect(sent.map((m) => m.type)).toEqual(['outgoing-lookup', 'guard-events', 'stream-end']);
    const events = sent.find((m) => m.type === 'guard-events');
    expect(events?.type === 'guard-events' && events.stream.direction).toBe('out');
  });

  it('reads a Request body from a clone: the page can still read its own Request', async () => {
    const { hook } = hookWith({ answer: noMarks });
    const page = new Request(URL_CHAT, chatInit('hello'));
    const args = await hook.prepare(page, undefined);
    expect(await (args?.[0] as Request).text()).toBe(await page.clone().text());
    expect(page.bodyUsed).toBe(false);
  });

  it('asks the person under warn and rejects with a TypeError on cancel', async () => {
    const mail = ['jane.doe', 'mailbox.org'].join('@');
    const { hook, sent } = hookWith({
      answer: (m) => [
        ...noMarks(m),
        ...(m.type === 'confirm-send'
          ? [
              {
                v: 1 as const,
                type: 'send-decision' as const,
                requestId: m.requestId,
                decision: 'cancel' as const,
              },
            ]
          : []),
      ],
    });
    await expect(hook.prepare(URL_CHAT, chatInit(`mail ${mail}`))).rejects.toBeInstanceOf(
      TypeError,
    );
    const confirm = sent.find((m) => m.type === 'confirm-send');
    expect(confirm?.type === 'confirm-send' && confirm.findings).toEqual([
      { rule: 'email-address', kind: 'pii', matched: mail },
    ]);
  });

  it('ignores answers with unknown ids', async () => {
    const { hook, host } = hookWith({ answer: noMarks });
    host.receive({ v: 1, type: 'send-decision', requestId: 'nobody', decision: 'send' });
    const args = await hook.prepare(URL_CHAT, chatInit('fine'));
    expect(await (args?.[0] as Request).text()).toContain('fine');
  });

  it('without the channel to the bridge, refuses every recognised request', async () => {
    const { hook, sent } = hookWith({ connected: false });
    await expect(hook.prepare(URL_CHAT, chatInit('fine'))).rejects.toBeInstanceOf(TypeError);
    expect(sent).toEqual([]);
    expect(hook.prepare('https://chat.example/api/status', undefined)).toBeUndefined();
  });

  it('refuses a stream body it cannot read without taking it from the page', async () => {
    const { hook } = hookWith({ answer: noMarks });
    const stream = new ReadableStream<Uint8Array>();
    const init = { ...chatInit('x'), body: stream, duplex: 'half' } as RequestInit;
    await expect(hook.prepare(URL_CHAT, init)).rejects.toBeInstanceOf(TypeError);
    expect(stream.locked).toBe(false);
  });
});
