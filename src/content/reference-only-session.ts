/**
 * The bridge's reference-only feature as one piece (issue 5 §3): the marks
 * (reference-only-marks.ts), the in-page controls (reference-only-controls.ts),
 * marks that survive a reload (stored through the background by keyed digest),
 * and the popup's requests relayed by the background.
 *
 * Key and storage: the first `reference-only-load` (for the conversation open at
 * start) brings the site's key from the background (background/reference-only-store.ts);
 * every digest waits for it. When the background does not answer (site switched
 * off meanwhile, worker gone), the marks fall back to a per-page key and are
 * neither loaded nor saved: nothing made with a throw-away key is stored.
 *
 * The popup sees what the in-page control sees: the messages the controls would
 * sit on (MESSAGE_SELECTOR, in document order), each with its role, a short
 * preview (the popup is the extension's own UI; previews are never stored) and
 * whether it is marked; marking from the popup is the same `marks.set` call
 * with the message's shown text that a click on the control makes.
 *
 * Kept free of extension APIs (`request` is injected) so it can be tested in a DOM.
 */
import {
  type BackgroundToContent,
  type ContentToBackground,
  type ReferenceOnlyList,
  REFERENCE_ONLY_LIST_LIMITS,
  type StoredReferenceMark,
  isStoredReferenceMark,
} from '../protocol/runtime-messages.ts';
import type { Translate } from '../ui/i18n.ts';
import { lazyStrings } from './lazy-strings.ts';
import { MESSAGE_SELECTOR, installReferenceOnlyControls } from './reference-only-controls.ts';
import {
  type Digest,
  type MarksStore,
  ReferenceOnlyMarks,
  createKeyedDigest,
  createPageDigest,
} from './reference-only-marks.ts';

/** Code points of a message shown in the popup's list. */
export const PREVIEW_CODE_POINTS = 80;

export interface ReferenceOnlyDeps {
  doc: Document;
  win: Window;
  translate: Translate;
  /** The current conversation (path and query). */
  conversation(): string;
  /** `runtime.sendMessage` to the background; resolves with its answer. */
  request(message: ContentToBackground): Promise<unknown>;
}

export interface ReferenceOnly {
  marks: ReferenceOnlyMarks;
  /** Installs the in-page controls (once the document has a body). */
  start(): void;
  /** The answer to a popup request the background relayed; undefined for other messages. */
  answer(message: BackgroundToContent): Promise<ReferenceOnlyList> | undefined;
}

interface LoadAnswer {
  key: string;
  marks: StoredReferenceMark[];
}

function asLoadAnswer(value: unknown): LoadAnswer | undefined {
  const answer = value as { key?: unknown; marks?: unknown } | null;
  if (typeof answer !== 'object' || answer === null) return undefined;
  if (typeof answer.key !== 'string' || !/^[0-9a-f]{64}$/.test(answer.key)) return undefined;
  if (!Array.isArray(answer.marks)) return undefined;
  return { key: answer.key, marks: answer.marks.filter(isStoredReferenceMark) };
}

/** The text's first code points with runs of white space as one space. */
export function previewOf(text: string): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  const points = Array.from(flat);
  return points.length <= PREVIEW_CODE_POINTS
    ? flat
    : `${points.slice(0, PREVIEW_CODE_POINTS).join('')}…`;
}

export function createReferenceOnly(deps: ReferenceOnlyDeps): ReferenceOnly {
  const { doc, win } = deps;
  const loads = new Map<string, Promise<LoadAnswer | undefined>>();
  const load = (conversation: string) => {
    let pending = loads.get(conversation);
    if (pending === undefined) {
      pending = deps
        .request({ to: 'background', type: 'reference-only-load', conversation })
        .then(asLoadAnswer, () => undefined);
      loads.set(conversation, pending);
    }
    return pending;
  };

  // The first load decides the key (and whether marks are kept across reloads).
  const keyed: Promise<{ digest: Digest; persistent: boolean }> = load(deps.conversation()).then(
    async (answer) => {
      if (answer !== undefined) {
        try {
          return {
            digest: await createKeyedDigest(win.crypto.subtle, answer.key),
            persistent: true,
          };
        } catch {
          // Fall through to a per-page key.
        }
      }
      return { digest: await createPageDigest(win.crypto.subtle), persistent: false };
    },
  );

  const store: MarksStore = {
    async load(conversation) {
      if (!(await keyed).persistent) return [];
      return (await load(conversation))?.marks ?? [];
    },
    save(conversation, marks) {
      void keyed.then(({ persistent }) => {
        if (!persistent) return;
        deps
          .request({ to: 'background', type: 'reference-only-save', conversation, marks })
          .catch(() => undefined);
      });
    },
  };
  const marks = new ReferenceOnlyMarks(async (text) => (await keyed).digest(text), store);

  let controls: { refresh(): void } | undefined;
  marks.onLoaded(() => controls?.refresh());

  const shown = () => [...doc.querySelectorAll<HTMLElement>(MESSAGE_SELECTOR)];

  const list = (): ReferenceOnlyList => {
    const conversation = deps.conversation();
    return {
      available: true,
      items: shown()
        .slice(0, REFERENCE_ONLY_LIST_LIMITS.items)
        .map((message, index) => ({
          index,
          role: (message.dataset.role ?? '').slice(0, REFERENCE_ONLY_LIST_LIMITS.role),
          preview: previewOf(message.textContent ?? ''),
          marked: marks.isMarked(conversation, index),
        })),
    };
  };

  const answer = (message: BackgroundToContent): Promise<ReferenceOnlyList> | undefined => {
    if (message.type === 'reference-only-list') {
      // Wait for the stored marks, so the popup does not show a stale "unmarked".
      return marks.ready(deps.conversation()).then(
        () => list(),
        () => list(),
      );
    }
    if (message.type !== 'reference-only-set') return undefined;
    const { index, marked } = message;
    const target = shown()[index];
    if (target === undefined) return Promise.resolve(list());
    const done = marks.set(deps.conversation(), index, target.textContent ?? '', marked);
    controls?.refresh();
    return done.then(
      () => list(),
      () => list(),
    );
  };

  const start = () => {
    const t = deps.translate;
    controls = installReferenceOnlyControls({
      doc,
      win,
      // Looked up when a control is first shown (lazy-strings.ts): the first lookup loads
      // the message catalogue, and most pages show none.
      strings: Object.assign(lazyStrings(t, { title: 'reference_only_title' }), {
        label: (n: number, role: string) => t('reference_only_label', [String(n), role]),
      }),
      isMarked: (index) => marks.isMarked(deps.conversation(), index),
      // A failed mark is taken back (reference-only-marks.ts); the control then shows it.
      toggle: (index, text, on) =>
        void marks.set(deps.conversation(), index, text, on).catch(() => controls?.refresh()),
    });
  };

  return { marks, start, answer };
}
