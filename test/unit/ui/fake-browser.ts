/**
 * A stand-in for `webextension-polyfill` in component tests: i18n answers from the
 * real English catalogue (so a missing key shows), and runtime/tabs/permissions are
 * spies each test programs.
 */
import { vi } from 'vitest';
import englishJson from '../../../_locales/en/messages.json' with { type: 'json' };

type Catalogue = Record<
  string,
  { message: string; placeholders?: Record<string, { content: string }> }
>;

const english: Catalogue = englishJson;

/** chrome.i18n.getMessage semantics: named placeholders map to $1…$9; unknown key → ''. */
export function englishMessage(key: string, substitutions?: string | string[]): string {
  const entry = english[key];
  if (!entry) return '';
  const values = substitutions === undefined ? [] : [substitutions].flat();
  return entry.message.replace(/\$([A-Za-z0-9_@]+)\$/g, (whole, name: string) => {
    const content = entry.placeholders?.[name.toLowerCase()]?.content;
    const index = content === undefined ? NaN : Number(content.slice(1)) - 1;
    return Number.isInteger(index) ? (values[index] ?? '') : whole;
  });
}

export interface FakePort {
  name: string;
  posted: unknown[];
  onMessage: { addListener: (listener: (message: unknown) => void) => void };
  onDisconnect: { addListener: (listener: () => void) => void };
  postMessage: (message: unknown) => void;
  disconnect: () => void;
  /** Test side: deliver a message from the background. */
  deliver: (message: unknown) => void;
}

function fakePort(name: string): FakePort {
  const listeners: ((message: unknown) => void)[] = [];
  const port: FakePort = {
    name,
    posted: [],
    onMessage: { addListener: (listener) => listeners.push(listener) },
    onDisconnect: { addListener: () => undefined },
    postMessage: (message) => port.posted.push(message),
    disconnect: () => undefined,
    deliver: (message) => listeners.forEach((listener) => listener(message)),
  };
  return port;
}

export const ports: FakePort[] = [];

/** Issue 21 §1: what `storage.managed.get()` gives (the organisation's policy). */
let managedArea: unknown = {};
/** Issue 21 §2: storage.local as extension pages read and write it (the audit export). */
export const localArea: Record<string, unknown> = {};
const storageListeners = new Set<(changes: unknown, area: string) => void>();

/** Sets the managed policy and, as Chrome does on a live change, fires `storage.onChanged`. */
export function setManagedPolicy(value: unknown, announce = true): void {
  managedArea = value;
  if (announce) for (const listener of storageListeners) listener({}, 'managed');
}

export const fakeBrowser = {
  i18n: { getMessage: vi.fn(englishMessage), getUILanguage: () => 'en' },
  runtime: {
    sendMessage: vi.fn<(message: unknown) => Promise<unknown>>(),
    connect: vi.fn(({ name }: { name: string }) => {
      const port = fakePort(name);
      ports.push(port);
      return port;
    }),
    getManifest: () => ({
      version: '0.1.0',
      host_permissions: ['https://claude.ai/*', 'http://127.0.0.1/*', 'http://localhost/*'],
    }),
    openOptionsPage: vi.fn(() => Promise.resolve()),
  },
  tabs: {
    query: vi.fn(() => Promise.resolve([{ id: 7, url: 'https://chat.example.com/c/1' }])),
    get: vi.fn((id: number) => Promise.resolve({ id, url: 'https://chat.example.com/c/1' })),
  },
  permissions: { request: vi.fn<(request: { origins: string[] }) => Promise<boolean>>() },
  storage: {
    managed: { get: vi.fn(() => Promise.resolve(structuredClone(managedArea))) },
    local: {
      get: vi.fn((keys: string[]) =>
        Promise.resolve(
          Object.fromEntries(keys.filter((k) => k in localArea).map((k) => [k, localArea[k]])),
        ),
      ),
      set: vi.fn((items: Record<string, unknown>) => {
        Object.assign(localArea, structuredClone(items));
        for (const listener of storageListeners) listener(items, 'local');
        return Promise.resolve();
      }),
      remove: vi.fn((keys: string[]) => {
        for (const key of keys) delete localArea[key];
        return Promise.resolve();
      }),
    },
    onChanged: {
      addListener: (listener: (changes: unknown, area: string) => void) =>
        storageListeners.add(listener),
      removeListener: (listener: (changes: unknown, area: string) => void) =>
        storageListeners.delete(listener),
    },
  },
};

export function resetFakeBrowser(): void {
  vi.clearAllMocks();
  ports.length = 0;
  managedArea = {};
  for (const key of Object.keys(localArea)) delete localArea[key];
  storageListeners.clear();
  fakeBrowser.i18n.getMessage.mockImplementation(englishMessage);
}
