// @vitest-environment happy-dom
/**
 * The bridge's reference-only piece in a DOM (issue 5 §3), against the real
 * background store over an in-memory storage area:
 * - the popup's list shows the messages the controls sit on, with short previews,
 *   and marking from it is the in-page control's `marks.set`;
 * - marks survive a reload: a new page (a new session, same background) leaves the
 *   same message out, and what is stored holds no text;
 * - without a background answer the marks still work for the page, and nothing is stored;
 * - previews are short for any text.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ReferenceOnlyStore } from '../../../src/background/reference-only-store.ts';
import { ReferenceOnlyMarks } from '../../../src/content/reference-only-marks.ts';
import {
  PREVIEW_CODE_POINTS,
  createReferenceOnly,
  previewOf,
} from '../../../src/content/reference-only-session.ts';
import type {
  ContentToBackground,
  ReferenceOnlyList,
  StoredReferenceMark,
} from '../../../src/protocol/runtime-messages.ts';
import { PROPERTY_RUNS } from '../../support/text-arbitraries.ts';

const ANSWER_MARKDOWN = '**Rugosa** roses are the hardiest.';

function showConversation(): void {
  document.body.innerHTML = '';
  const messages: [string, string, string][] = [
    ['user', '1', 'Which roses   survive\n frost?'],
    ['assistant', '0', 'Rugosa roses are the hardiest.'],
    ['user', '2', 'And tulips?'],
  ];
  for (const [role, index, text] of messages) {
    const div = document.createElement('div');
    div.dataset.role = role;
    div.dataset.index = index;
    div.textContent = text;
    document.body.append(div);
  }
}

/** What the page sends for the conversation above (the answer as Markdown). */
const SENT = ['Which roses   survive\n frost?', ANSWER_MARKDOWN, 'And tulips?'];

/** A background double: the real store behind the bridge's two messages, for one site. */
function background(storage: Record<string, unknown> = {}) {
  const area = {
    get: async (key: string) => (key in storage ? { [key]: structuredClone(storage[key]) } : {}),
    set: async (items: Record<string, unknown>) =>
      void Object.assign(storage, structuredClone(items)),
  };
  const store = new ReferenceOnlyStore(area);
  const saves: StoredReferenceMark[][] = [];
  const request = async (message: ContentToBackground): Promise<unknown> => {
    if (message.type === 'reference-only-load') {
      return store.load('chat.example', message.conversation);
    }
    if (message.type === 'reference-only-save') {
      saves.push(message.marks);
      await store.save('chat.example', message.conversation, message.marks);
      return { ok: true };
    }
    return undefined;
  };
  return { storage, saves, request };
}

function session(request: (m: ContentToBackground) => Promise<unknown>) {
  return createReferenceOnly({
    doc: document,
    win: window,
    translate: (key) => key,
    conversation: () => '/chat?chat=garden',
    request,
  });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

afterEach(() => {
  document.body.innerHTML = '';
});

describe('reference-only session', () => {
  it('lists the messages with short previews and marks one from the popup', async () => {
    showConversation();
    const bg = background();
    const page = session(bg.request);
    const list = (await page.answer({
      to: 'bridge',
      type: 'reference-only-list',
    })) as ReferenceOnlyList;
    expect(list).toEqual({
      available: true,
      items: [
        { index: 0, role: 'user', preview: 'Which roses survive frost?', marked: false },
        { index: 1, role: 'assistant', preview: 'Rugosa roses are the hardiest.', marked: false },
        { index: 2, role: 'user', preview: 'And tulips?', marked: false },
      ],
    });
    const after = await page.answer({
      to: 'bridge',
      type: 'reference-only-set',
      index: 1,
      marked: true,
    });
    expect(after?.items.map((i) => i.marked)).toEqual([false, true, false]);
    expect(page.marks.isMarked('/chat?chat=garden', 1)).toBe(true);
    // The next request leaves it out, although the page sends Markdown for it.
    expect(await page.marks.lookup('/chat?chat=garden', SENT)).toEqual([1]);
    // Not the popup's message: no answer.
    expect(page.answer({ to: 'bridge', type: 'paste-as-untrusted' })).toBeUndefined();
    // An index the page does not show changes nothing.
    const unchanged = await page.answer({
      to: 'bridge',
      type: 'reference-only-set',
      index: 9,
      marked: true,
    });
    expect(unchanged?.items.map((i) => i.marked)).toEqual([false, true, false]);
  });

  it('a mark survives a reload: the next page leaves the same message out; no text is stored', async () => {
    showConversation();
    const bg = background();
    const first = session(bg.request);
    await first.answer({ to: 'bridge', type: 'reference-only-set', index: 1, marked: true });
    expect(await first.marks.lookup('/chat?chat=garden', SENT)).toEqual([1]);
    await settle();

    showConversation();
    const reloaded = session(bg.request);
    const list = await reloaded.answer({ to: 'bridge', type: 'reference-only-list' });
    expect(list?.items.map((i) => i.marked)).toEqual([false, true, false]);
    // Bound to the sent text's digest: found wherever it moves.
    expect(await reloaded.marks.lookup('/chat?chat=garden', [ANSWER_MARKDOWN, 'new'])).toEqual([0]);

    const stored = JSON.stringify(bg.storage);
    for (const text of [...SENT, 'Rugosa roses are the hardiest.', 'garden', '/chat']) {
      expect(stored).not.toContain(text);
    }
    expect(bg.saves.at(-1)).toEqual([
      {
        position: 1,
        pending: false,
        digests: [expect.stringMatching(/^[0-9a-f]{32}$/), expect.stringMatching(/^[0-9a-f]{32}$/)],
      },
    ]);

    // Unmarking is stored too.
    await reloaded.answer({ to: 'bridge', type: 'reference-only-set', index: 1, marked: false });
    await settle();
    const third = session(bg.request);
    expect(await third.marks.lookup('/chat?chat=garden', SENT)).toEqual([]);
  });

  it('a mark not yet sent survives a reload by position', async () => {
    showConversation();
    const bg = background();
    const first = session(bg.request);
    await first.answer({ to: 'bridge', type: 'reference-only-set', index: 1, marked: true });
    await settle();
    const reloaded = session(bg.request);
    expect(await reloaded.marks.lookup('/chat?chat=garden', SENT)).toEqual([1]);
  });

  it('without a background answer the marks work for this page and nothing is saved', async () => {
    showConversation();
    const requests: ContentToBackground[] = [];
    const page = session(async (m) => {
      requests.push(m);
      return undefined;
    });
    await page.answer({ to: 'bridge', type: 'reference-only-set', index: 1, marked: true });
    expect(await page.marks.lookup('/chat?chat=garden', SENT)).toEqual([1]);
    await settle();
    expect(requests.map((m) => m.type)).toEqual(['reference-only-load']);
  });

  it('the in-page control and the popup show the same state', async () => {
    showConversation();
    const page = session(background().request);
    page.start();
    await page.answer({ to: 'bridge', type: 'reference-only-set', index: 2, marked: true });
    await settle();
    expect(page.marks.isMarked('/chat?chat=garden', 2)).toBe(true);
    expect(document.querySelector('chat-stream-guard-reference-only')).not.toBeNull();
  });
});

describe('ReferenceOnlyMarks with a store', () => {
  it("the person's change before the stored marks arrive wins over them", async () => {
    let release: (marks: StoredReferenceMark[]) => void = () => undefined;
    const saved: StoredReferenceMark[][] = [];
    const digest = async (text: string) => text.length.toString(16).padStart(32, '0');
    const marks = new ReferenceOnlyMarks(digest, {
      load: () => new Promise((resolve) => (release = resolve)),
      save: (_c, m) => void saved.push(m),
    });
    const unmark = marks.set('/c', 1, '', false);
    release([
      { position: 1, pending: false, digests: [digest.length.toString(16).padStart(32, '0')] },
      { position: 4, pending: true, digests: [] },
    ]);
    await unmark;
    expect(marks.isMarked('/c', 1)).toBe(false);
    expect(marks.isMarked('/c', 4)).toBe(true);
    expect(saved.at(-1)).toEqual([{ position: 4, pending: true, digests: [] }]);
  });
});

describe('ReferenceOnlyMarks when the digest fails', () => {
  it('takes the mark back, so nothing shows as marked that a request would still carry', async () => {
    const marks = new ReferenceOnlyMarks(() => Promise.reject(new Error('no crypto')));
    await expect(marks.set('/c', 1, 'shown text', true)).rejects.toThrow('no crypto');
    expect(marks.isMarked('/c', 1)).toBe(false);
  });
});

describe('previewOf', () => {
  it('for any text: white space collapsed, at most the preview length plus an ellipsis', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        const preview = previewOf(text);
        const flat = text.replace(/\s+/gu, ' ').trim();
        const points = Array.from(preview);
        expect(points.length).toBeLessThanOrEqual(PREVIEW_CODE_POINTS + 1);
        expect(preview).not.toMatch(/\s\s/u);
        if (Array.from(flat).length <= PREVIEW_CODE_POINTS) expect(preview).toBe(flat);
        else expect(flat.startsWith(points.slice(0, -1).join(''))).toBe(true);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
