// @vitest-environment happy-dom
/**
 * The reference-only overlay (reference-only-controls.ts) is made when a message is
 * first shown, not at install (issue 19 §4, docs/page-setup.md "Set-up, 3 December"):
 * a page that shows no message gets no host element, and one whose messages appear
 * later gets the host and a control per message once they do.
 */
import { describe, expect, it } from 'vitest';
import {
  CONTROLS_HOST_TAG,
  installReferenceOnlyControls,
} from '../../../src/content/reference-only-controls.ts';

const oneFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
/** After the observer's records (a microtask) and the frame they scheduled. */
const frame = async () => {
  await oneFrame();
  await oneFrame();
};

/** A document of its own per test: an earlier test's observer does not see it. */
function install(doc: Document) {
  return installReferenceOnlyControls({
    doc,
    win: window,
    strings: { label: (n, role) => `${role} ${String(n)}`, title: 'reference only' },
    isMarked: () => false,
    toggle: () => undefined,
  });
}

function showMessage(doc: Document, role: string, index: string): void {
  const div = doc.createElement('div');
  div.dataset.role = role;
  div.dataset.index = index;
  div.textContent = 'text';
  doc.body.append(div);
}

const hosts = (doc: Document) => doc.querySelectorAll(CONTROLS_HOST_TAG).length;
const newDocument = () => document.implementation.createHTMLDocument('page');

describe('installReferenceOnlyControls', () => {
  it('adds nothing to a page that shows no message', async () => {
    const doc = newDocument();
    const controls = install(doc);
    await frame();
    controls.refresh();
    doc.body.append(doc.createElement('p'));
    await frame();
    expect(hosts(doc)).toBe(0);
  });

  it('adds its one host once a message is shown, and keeps it', async () => {
    const doc = newDocument();
    const controls = install(doc);
    await frame();
    expect(hosts(doc)).toBe(0);
    showMessage(doc, 'user', '1');
    await frame();
    expect(hosts(doc)).toBe(1);
    showMessage(doc, 'assistant', '0');
    await frame();
    controls.refresh();
    expect(hosts(doc)).toBe(1);
  });
});
