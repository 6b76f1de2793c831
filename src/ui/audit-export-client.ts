/**
 * Issue 21 §2: the audit export as the options page sees and sets it. Extension
 * pages may read storage themselves, so the page reads the person's endpoint and
 * the export's status (written by the background, otlp-exporter.ts) from
 * storage.local and the organisation's from storage.managed, and writes only the
 * person's endpoint and encoding; the background reacts to the change (storage.onChanged).
 */
import { useEffect, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import {
  DEFAULT_OTLP_ENCODING,
  endpointPermissionPattern,
  parseOtlpEncoding,
  parseOtlpEndpoint,
  type OtlpEncoding,
} from '../background/otlp-endpoint.ts';
import {
  EXPORT_SETTINGS_KEY,
  EXPORT_STATUS_KEY,
  type ExportStatus,
} from '../background/otlp-exporter.ts';

export interface AuditExportView {
  /** The person's own endpoint ('' when none). */
  own: string;
  /** The organisation's endpoint, when its policy sets one (the field is then locked). */
  managed: string | undefined;
  /** The person's own encoding (the default when none is stored). */
  ownEncoding: OtlpEncoding;
  /** The organisation's encoding, when its policy sets one (the choice is then locked). */
  managedEncoding: OtlpEncoding | undefined;
  status: ExportStatus | undefined;
}

type StoredSettings = { endpoint?: unknown; encoding?: unknown } | undefined;

async function readView(): Promise<AuditExportView> {
  const stored = await browser.storage.local.get([EXPORT_SETTINGS_KEY, EXPORT_STATUS_KEY]);
  const own = stored[EXPORT_SETTINGS_KEY] as StoredSettings;
  let managed: StoredSettings;
  try {
    const area = await browser.storage.managed.get('auditExport');
    managed = area.auditExport as StoredSettings;
  } catch {
    // Firefox rejects when no policy names the extension: no policy.
  }
  return {
    own: typeof own?.endpoint === 'string' ? own.endpoint : '',
    managed: parseOtlpEndpoint(managed?.endpoint),
    ownEncoding: parseOtlpEncoding(own?.encoding) ?? DEFAULT_OTLP_ENCODING,
    managedEncoding: parseOtlpEncoding(managed?.encoding),
    status: stored[EXPORT_STATUS_KEY] as ExportStatus | undefined,
  };
}

/** The export's settings and status, kept current while the page is open. */
export function useAuditExport(): AuditExportView | undefined {
  const [view, setView] = useState<AuditExportView>();
  useEffect(() => {
    let active = true;
    const load = () =>
      void readView()
        .then((next) => active && setView(next))
        .catch(() => undefined);
    const listener = (changes: Record<string, unknown>, area: string) => {
      if (area === 'managed' || EXPORT_SETTINGS_KEY in changes || EXPORT_STATUS_KEY in changes) {
        load();
      }
    };
    load();
    browser.storage.onChanged.addListener(listener);
    return () => {
      active = false;
      browser.storage.onChanged.removeListener(listener);
    };
  }, []);
  return view;
}

export type SaveOutcome = 'saved' | 'invalid' | 'denied';

/**
 * Sets the person's endpoint. Must be called synchronously from a click: the host
 * permission is requested first (`optional_host_permissions`), and both browsers
 * refuse `permissions.request` outside a user gesture.
 */
export function saveEndpoint(typed: string): Promise<SaveOutcome> {
  const endpoint = parseOtlpEndpoint(typed);
  if (endpoint === undefined) return Promise.resolve('invalid');
  let granted: Promise<boolean>;
  try {
    granted = browser.permissions
      .request({ origins: [endpointPermissionPattern(endpoint)] })
      .catch(() => false);
  } catch {
    granted = Promise.resolve(false);
  }
  return granted.then(async (ok) => {
    if (!ok) return 'denied';
    await storeSettings({ endpoint });
    return 'saved';
  });
}

/** Sets the person's encoding (no permission needed: the endpoint's host is the same). */
export function saveEncoding(encoding: OtlpEncoding): Promise<void> {
  return storeSettings({ encoding });
}

/** Changes one of the person's settings, keeping the other. */
async function storeSettings(change: { endpoint?: string; encoding?: OtlpEncoding }) {
  const stored = (await browser.storage.local.get([EXPORT_SETTINGS_KEY]))[EXPORT_SETTINGS_KEY];
  const kept: Record<string, unknown> = {};
  const { endpoint, encoding } = (stored ?? {}) as { endpoint?: unknown; encoding?: unknown };
  if (typeof endpoint === 'string') kept.endpoint = endpoint;
  if (parseOtlpEncoding(encoding) !== undefined) kept.encoding = encoding;
  await browser.storage.local.set({ [EXPORT_SETTINGS_KEY]: { ...kept, ...change } });
}

/**
 * Asks for the host permission of the endpoint in force (the organisation's: a policy
 * cannot grant it). From a click, like `saveEndpoint`; the background resumes on
 * `permissions.onAdded`.
 */
export function allowEndpointHost(endpoint: string): Promise<boolean> {
  try {
    return browser.permissions
      .request({ origins: [endpointPermissionPattern(endpoint)] })
      .catch(() => false);
  } catch {
    return Promise.resolve(false);
  }
}

/** Switches the export off (the background then empties its queue). */
export async function removeEndpoint(): Promise<void> {
  await browser.storage.local.remove([EXPORT_SETTINGS_KEY, EXPORT_STATUS_KEY]);
}
