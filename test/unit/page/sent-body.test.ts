/**
 * Issue 19 §4: the fetch hook judges a send the outgoing hook rebuilt from the text it
 * put in (main-world.ts, `outgoingHook.sentText` and chat-request-probe.ts
 * `requestBodyAsRead`) instead of cloning the Request and reading it back. Differential:
 * for any text, what it reads and the verdict it gives are those of the clone-and-read
 * path (lone surrogates, a leading BOM and non-BMP text included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestBodyAsRead, requestVerdictOf } from '../../../src/page/chat-request-probe.ts';
import { noMarks } from '../../support/no-marks.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { hookWith } from '../../support/outgoing-pair.ts';

const URL_CHAT = 'https://chat.example/v1/chat/completions';
const options = { baseUrl: () => 'https://chat.example/' };

const post = (body: string) =>
  new Request(URL_CHAT, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });

/** Text as a body: any code units (lone surrogates too), sometimes after a BOM, sometimes JSON. */
const bodies = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'binary' }).map((s) => `\uFEFF${s}`),
  fc
    .string({ unit: 'binary' })
    .map((content) => JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] })),
);

describe('requestBodyAsRead', () => {
  it('for any text, reads what cloning the Request and reading it does, and judges alike', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (text) => {
        const read = await post(text).clone().text();
        expect(requestBodyAsRead(text)).toBe(read);
        const slow = await requestVerdictOf(post(text), undefined, options);
        const fast = await requestVerdictOf(post(text), { body: requestBodyAsRead(text) }, options);
        expect(fast).toEqual(slow);
      }),
      { numRuns: PROPERTY_RUNS / 4 },
    );
  });

  it('declines a body it would read only the start of', () => {
    expect(requestBodyAsRead('x'.repeat(4 * 1024 * 1024 + 1))).toBeUndefined();
    expect(requestBodyAsRead('x'.repeat(4 * 1024 * 1024))).toHaveLength(4 * 1024 * 1024);
  });
});

describe('outgoing hook sentText', () => {
  it('is the (guarded) body of a Request the hook built, and nothing for any other input', async () => {
    const { hook } = hookWith({ answer: noMarks });
    const token = fakeGithubToken(8);
    const content = `my key ${token}`;
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
    };
    const args = await hook.prepare(URL_CHAT, init);
    const built = args?.[0] as Request;
    expect(hook.sentText(built)).toBe(await built.clone().text());
    expect(hook.sentText(built)).not.toContain(token);
    expect(hook.sentText(post(init.body))).toBeUndefined();
    expect(hook.sentText(URL_CHAT)).toBeUndefined();
  });
});
