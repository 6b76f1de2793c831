import { describe, expect, it } from 'vitest';
import {
  checkContentSender,
  checkUiSender,
  type SenderFacts,
} from '../../../src/background/sender-check.ts';

const self = { id: 'csg-extension-id', baseUrl: 'chrome-extension://csg-extension-id/' };
const enabled = new Set(['chatgpt.com', '127.0.0.1']);
const isEnabled = (site: string) => enabled.has(site);

describe('checkContentSender', () => {
  it('accepts our content script in a tab of an enabled site, top frame or sub-frame', () => {
    expect(
      checkContentSender(
        { id: self.id, url: 'https://chatgpt.com/c/1', tab: { id: 7 }, frameId: 0 },
        self,
        isEnabled,
      ),
    ).toEqual({ tabId: 7, frameId: 0, site: 'chatgpt.com' });
    expect(
      checkContentSender(
        { id: self.id, url: 'http://127.0.0.1:8787/frame', tab: { id: 3 }, frameId: 12 },
        self,
        isEnabled,
      ),
    ).toEqual({ tabId: 3, frameId: 12, site: '127.0.0.1' });
  });

  it.each([
    'about:blank',
    'about:srcdoc',
    'blob:http://127.0.0.1:8787/0b6c7a1e-8f7d-4c38-9d1a-2f54e1c0a9b2',
  ])('accepts a frame at %s by its origin (issue 18 §2)', (url) => {
    expect(
      checkContentSender(
        { id: self.id, url, origin: 'http://127.0.0.1:8787', tab: { id: 3 }, frameId: 5 },
        self,
        isEnabled,
      ),
    ).toEqual({ tabId: 3, frameId: 5, site: '127.0.0.1' });
  });

  it.each<[string, SenderFacts]>([
    ['another extension', { id: 'other-id', url: 'https://chatgpt.com/', tab: { id: 1 } }],
    ['no sender id', { url: 'https://chatgpt.com/', tab: { id: 1 } }],
    ['no tab (an extension page or worker)', { id: self.id, url: 'https://chatgpt.com/' }],
    ['a tab without id', { id: self.id, url: 'https://chatgpt.com/', tab: {} }],
    ['a negative tab id', { id: self.id, url: 'https://chatgpt.com/', tab: { id: -1 } }],
    ['a site switched off', { id: self.id, url: 'https://claude.ai/new', tab: { id: 1 } }],
    [
      'a frame on a site switched off',
      { id: self.id, url: 'https://evil.example/', tab: { id: 1 }, frameId: 4 },
    ],
    [
      'our own page opened in a tab',
      { id: self.id, url: `${self.baseUrl}src/ui/popup/index.html`, tab: { id: 1 } },
    ],
    ['a non-web URL', { id: self.id, url: 'data:text/html,hi', tab: { id: 1 } }],
    [
      'a data: frame, whatever origin it claims',
      { id: self.id, url: 'data:text/html,hi', origin: 'https://chatgpt.com', tab: { id: 1 } },
    ],
    [
      'an about:blank frame of a site switched off',
      { id: self.id, url: 'about:blank', origin: 'https://claude.ai', tab: { id: 1 } },
    ],
    [
      'a sandboxed srcdoc frame (opaque origin)',
      { id: self.id, url: 'about:srcdoc', origin: 'null', tab: { id: 1 } },
    ],
    ['an about:blank frame without origin', { id: self.id, url: 'about:blank', tab: { id: 1 } }],
    ['no URL', { id: self.id, tab: { id: 1 } }],
  ])('refuses %s', (_name, sender) => {
    expect(checkContentSender(sender, self, isEnabled)).toBeNull();
  });
});

describe('checkUiSender', () => {
  it('accepts our popup and options pages', () => {
    expect(
      checkUiSender({ id: self.id, url: `${self.baseUrl}src/ui/popup/index.html` }, self),
    ).toBe(true);
    expect(
      checkUiSender(
        { id: self.id, url: `${self.baseUrl}src/ui/options/index.html`, tab: { id: 2 } },
        self,
      ),
    ).toBe(true);
  });

  it.each<[string, SenderFacts]>([
    ['a content script', { id: self.id, url: 'https://chatgpt.com/', tab: { id: 1 } }],
    ['another extension page', { id: 'other', url: 'chrome-extension://other/popup.html' }],
    ['a look-alike URL', { id: self.id, url: 'chrome-extension://csg-extension-id.evil/x' }],
    ['no URL', { id: self.id }],
  ])('refuses %s', (_name, sender) => {
    expect(checkUiSender(sender, self)).toBe(false);
  });
});
