/**
 * Notices pastes into the page's text fields (issue 5 §2): a capture-phase
 * `paste` listener on the document, so it sees the paste before the page's
 * editor handles (or cancels) it. A paste into a textarea, a text input or a
 * contenteditable element is remembered as untrusted when the person asked
 * for it ("Paste as untrusted" arms the next paste) or when it is at least
 * `autoEnvelopeMinChars` long (0 = only on request).
 *
 * The text is read from the clipboard data and, after the browser inserted it,
 * from the field itself (the `input` event of the paste): what the field holds
 * is what the page sends, and some browsers do not expose the clipboard data
 * of every paste event.
 *
 * The listener never prevents or changes the paste: the page's input keeps
 * exactly what was pasted. Synthetic paste events are accepted too (a page
 * could make the bridge wrap text of its own request, which it controls
 * anyway; nothing is weakened by that).
 */
import type { PastedSpans } from './pasted-spans.ts';

export interface PasteTrackerDeps {
  doc: Document;
  spans: PastedSpans;
  /** Current `autoEnvelopeMinChars` (0 = only pastes the person marked). */
  autoMinChars(): number;
  /** Called after a paste was remembered (e.g. to tell the person). */
  remembered?(length: number, armed: boolean): void;
}

export interface PasteTracker {
  /** Marks the next paste as untrusted, whatever its length. */
  armNextPaste(): void;
  readonly armed: boolean;
}

function isTextField(target: EventTarget | null): boolean {
  if (target === null || typeof (target as Node).nodeType !== 'number') return false;
  const node = target as Node;
  const element = node.nodeType === 1 ? (node as Element) : node.parentElement;
  if (element === null) return false;
  if (element.tagName === 'TEXTAREA') return true;
  if (element.tagName === 'INPUT') {
    const type = (element.getAttribute('type') ?? 'text').toLowerCase();
    return ['text', 'search', 'url', ''].includes(type);
  }
  return (element as HTMLElement).isContentEditable === true;
}

/** The text a field holds (a text control's value, or an editable element's text). */
function fieldText(target: EventTarget | null): string | undefined {
  const element = target as (HTMLElement & { value?: unknown }) | null;
  if (element === null) return undefined;
  if (typeof element.value === 'string') return element.value;
  return element.textContent ?? undefined;
}

/** What was inserted between `before` and `after` (common prefix and suffix removed). */
export function insertedText(before: string, after: string): string {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start &&
    end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  ) {
    end++;
  }
  return after.slice(start, after.length - end);
}

export function trackPastes(deps: PasteTrackerDeps): PasteTracker {
  let armed = false;
  /** The paste whose insertion the next `input` event reports. */
  let pending: { target: EventTarget; before: string; clipboard: string; armed: boolean } | null =
    null;

  const remember = (texts: string[], wasArmed: boolean) => {
    const min = deps.autoMinChars();
    const longest = Math.max(0, ...texts.map((t) => t.length));
    if (longest === 0 || (!wasArmed && !(min > 0 && longest >= min))) return;
    for (const text of texts) deps.spans.add(text);
    deps.remembered?.(longest, wasArmed);
  };

  deps.doc.addEventListener(
    'paste',
    (event: ClipboardEvent) => {
      try {
        if (!isTextField(event.target) || event.target === null) return;
        const wasArmed = armed;
        armed = false;
        const clipboard = event.clipboardData?.getData('text/plain') ?? '';
        // What the field holds before the browser inserts the paste: the insertion
        // itself is read on `input`, as the field sanitised it (a textarea turns CR
        // into LF; Firefox turns U+2028 into a space).
        pending = {
          target: event.target,
          before: fieldText(event.target) ?? '',
          clipboard,
          armed: wasArmed,
        };
        if (clipboard !== '') remember([clipboard], wasArmed);
      } catch {
        // Never disturb the page's paste.
      }
    },
    { capture: true },
  );
  deps.doc.addEventListener(
    'input',
    (event: Event) => {
      try {
        const paste = pending;
        if (paste === null || event.target !== paste.target) return;
        pending = null;
        if ((event as InputEvent).inputType !== 'insertFromPaste') return;
        const inserted = insertedText(paste.before, fieldText(event.target) ?? '');
        if (inserted !== '' && inserted !== paste.clipboard) {
          remember([inserted, ...(paste.clipboard === '' ? [] : [paste.clipboard])], paste.armed);
        }
      } catch {
        // Never disturb the page's input.
      }
    },
    { capture: true },
  );
  return {
    armNextPaste() {
      armed = true;
    },
    get armed() {
      return armed;
    },
  };
}
