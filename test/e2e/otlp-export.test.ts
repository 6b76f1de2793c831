/**
 * Issue 21 §3: the audit export over OTLP/HTTP in the real browsers. A loopback
 * OTLP/HTTP receiver (otlp-receiver.ts) decodes what arrives with the official
 * protocol definitions (protobufjs, generated from opentelemetry-proto), in either
 * encoding, and refuses (400) what does not verify. A scripted session logs redactions, the
 * endpoint goes down for a true 30 seconds while more are logged, the background
 * is stopped in the middle of the outage, and the endpoint comes back. Then every
 * record of the audit store must have arrived exactly once, under its idempotent
 * record id, and no request may hold any text of the conversation.
 *
 * Stopping the background:
 * - Chromium: the service worker target is closed over CDP (puppeteer's
 *   `WebWorker.close`, Target.closeTarget), which stops the worker; only the
 *   export's alarm (or another event) starts a new one.
 * - Firefox has no such command for an event page; the test sets its idle timeout
 *   (`extensions.background.idle.timeout`) to 2 s, so the event page is suspended
 *   whenever it idles during the outage, and checks through
 *   `runtime.getBackgroundPage()` that the page it finds afterwards is a new one.
 *
 * Both browsers run at the same time (one test each, concurrently) so the suite
 * pays for one 30-second outage, not two. That run uses the person's encoding
 * choice, binary protobuf; last, a short run with the endpoint and the encoding
 * (JSON) set by the organisation's policy (managed-launch.ts): each record arrives
 * once, in JSON, and both settings are shown locked in the options page.
 */
import type { Page } from 'puppeteer';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPORTED_ATTRIBUTES } from '../../src/background/otlp-log-record.ts';
import { scriptedAnswer } from '../mock-chat/scripted-answers.ts';
import { startMockChat } from '../mock-chat/server.ts';
import {
  askMockChat,
  launchChromium,
  launchFirefox,
  OPTIONS_PATH,
  openExtensionPage,
  type ExtensionBrowser,
} from './launch.ts';
import { launchChromiumWithPolicy, launchFirefoxWithPolicy } from './managed-launch.ts';
import { startOtlpReceiver, type OtlpEncoding, type OtlpReceiver } from './otlp-receiver.ts';

const OUTAGE_MS = 30_000;
const PROMPTS_BEFORE = ['show me the secret', 'what is in the env file'];
const PROMPTS_DURING = ['tell me the secret again', 'the env file once more'];

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  diagnose?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what} ${(await diagnose?.()) ?? ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The ids of every record in the audit store, and how many are still queued for export. */
function auditState(extensionPage: Page): Promise<{ ids: number[]; queued: number }> {
  return extensionPage.evaluate(
    () =>
      new Promise<{ ids: number[]; queued: number }>((resolve, reject) => {
        const open = indexedDB.open('csg-audit');
        open.onerror = () => reject(new Error('open failed'));
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction(['events', 'export-queue']);
          const keys = tx.objectStore('events').getAllKeys();
          const queued = tx.objectStore('export-queue').count();
          tx.oncomplete = () => {
            resolve({ ids: keys.result as number[], queued: queued.result });
            db.close();
          };
          tx.onerror = () => reject(new Error('read failed'));
        };
      }),
  );
}

function receivedIds(receiver: OtlpReceiver): string[] {
  return receiver.records.map((record) => String(record.attributes['csg.record.id']));
}

/** Stops the background (see the file comment); returns how to tell a new one started. */
async function stopBackground(target: ExtensionBrowser, extensionPage: Page) {
  if (target.name === 'chromium') {
    const worker = target.browser
      .targets()
      .find((t) => t.type() === 'service_worker' && t.url().startsWith(target.extensionBase));
    if (!worker) throw new Error('no service worker running');
    await (await worker.worker())?.close();
    await until(
      'the service worker to stop',
      async () =>
        target.browser
          .targets()
          .some((t) => t.type() === 'service_worker' && t.url().startsWith(target.extensionBase))
          ? undefined
          : true,
      10_000,
    );
    return;
  }
  // Firefox: suspended by the short idle timeout; wait until it idled at least once.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  void extensionPage;
}

/** Firefox: when the event page now running was made (a new page after a suspension). */
function backgroundTimeOrigin(extensionPage: Page): Promise<number> {
  return extensionPage.evaluate(async () => {
    const page = await browser.runtime.getBackgroundPage();
    return page?.performance.timeOrigin ?? -1;
  });
}

async function scenario(name: 'chromium' | 'firefox', encoding: OtlpEncoding): Promise<void> {
  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  const chat = await startMockChat({ chunkDelayMs: 2 });
  cleanups.push(() => chat.close());
  const target =
    name === 'chromium'
      ? await launchChromium()
      : await launchFirefox({ firefoxPrefs: { 'extensions.background.idle.timeout': 2_000 } });
  cleanups.push(() => target.close());
  const extensionPage = await openExtensionPage(target, OPTIONS_PATH, 'main');
  // The person's own endpoint and encoding, as the options page stores them (loopback: a default host).
  await extensionPage.evaluate(
    async (endpoint: string, encoding: string) => {
      await chrome.storage.local.set({ auditExport: { endpoint, encoding } });
    },
    receiver.url,
    encoding,
  );

  const page = await target.browser.newPage();
  await page.goto(`${chat.url}/`, { waitUntil: 'load' });
  await page.waitForSelector('html[data-csg-bridge="on"]', { timeout: 10_000 });
  for (const prompt of PROMPTS_BEFORE) await askMockChat(page, prompt);
  const before = await until(
    'the first records to arrive',
    async () => {
      const { ids, queued } = await auditState(extensionPage);
      return ids.length >= PROMPTS_BEFORE.length && queued === 0 && receiver.records.length > 0
        ? ids
        : undefined;
    },
    20_000,
  );
  expect(receivedIds(receiver)).toHaveLength(before.length);
  const origin = name === 'firefox' ? await backgroundTimeOrigin(extensionPage) : 0;

  // The outage: connections reset for 30 s; records logged meanwhile stay queued.
  receiver.down();
  const outageStart = Date.now();
  for (const prompt of PROMPTS_DURING) await askMockChat(page, prompt);
  const during = await until(
    'the records of the outage to be queued',
    async () => {
      const state = await auditState(extensionPage);
      return state.ids.length > before.length && state.queued > 0 ? state : undefined;
    },
    20_000,
  );
  expect(during.queued).toBe(during.ids.length - before.length);
  await until(
    'a failed delivery',
    async () => (receiver.requests.reset > 0 ? true : undefined),
    20_000,
  );
  await stopBackground(target, extensionPage);
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (Date.now() - outageStart)));
  expect(receiver.records).toHaveLength(before.length);
  receiver.up();

  // Nothing nudges the background now: its alarm must wake it (Chromium: ≥ 30 s).
  const diagnose = async () =>
    JSON.stringify({
      requests: receiver.requests,
      received: receiver.records.length,
      state: await auditState(extensionPage),
      status: await extensionPage.evaluate(() => chrome.storage.local.get('auditExportStatus')),
      alarms: await extensionPage.evaluate(() => chrome.alarms.getAll()),
    });
  const all = await until(
    'every record to arrive after the outage',
    async () => {
      const { ids, queued } = await auditState(extensionPage);
      return queued === 0 && receiver.records.length >= ids.length ? ids : undefined;
    },
    90_000,
    diagnose,
  );
  if (name === 'chromium') {
    expect(
      target.browser
        .targets()
        .some((t) => t.type() === 'service_worker' && t.url().startsWith(target.extensionBase)),
    ).toBe(true);
  } else {
    expect(await backgroundTimeOrigin(extensionPage)).toBeGreaterThan(origin);
  }

  // Exactly once: one log record per audit record, under its id, none twice.
  const installId = await extensionPage.evaluate(async () => {
    const stored = await chrome.storage.local.get('auditExportInstallId');
    return stored.auditExportInstallId as string;
  });
  const ids = receivedIds(receiver);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(all.map((id) => `${installId}:${id}`).sort());
  expect(receiver.requests.rejected).toBe(0);
  expect(receiver.encodings).toEqual({
    json: 0,
    protobuf: 0,
    [encoding]: receiver.requests.accepted,
  });

  // The model: resource, scope, event name, and only the allowed attributes.
  for (const record of receiver.records) {
    expect(record.resource).toMatchObject({
      'service.name': 'chat-stream-guard',
      'service.instance.id': installId,
    });
    expect(record.scope.name).toBe('chat-stream-guard.audit');
    expect(record.eventName).toBe('csg.audit');
    expect(record.hasBody).toBe(false);
    const allowed: readonly string[] = EXPORTED_ATTRIBUTES;
    expect(Object.keys(record.attributes).filter((key) => !allowed.includes(key))).toEqual([]);
  }
  expect(receiver.records.map((record) => record.attributes['csg.rule.id'])).toContain(
    'github-pat',
  );

  // Never text: no prompt, no answer, no matched secret in any request body.
  const wire = receiver.rawBodies.join('\n');
  for (const prompt of [...PROMPTS_BEFORE, ...PROMPTS_DURING]) {
    expect(wire).not.toContain(prompt);
    const { text, payload } = scriptedAnswer(prompt);
    expect(wire).not.toContain(payload);
    expect(wire).not.toContain(payload.slice(4, 20));
    for (const line of text.split('\n').filter((l) => l.trim().length > 12)) {
      expect(wire).not.toContain(line.trim());
    }
  }
}

describe.concurrent('audit export over OTLP/HTTP', () => {
  for (const name of ['chromium', 'firefox'] as const) {
    it(`${name}: every record arrives exactly once across a worker stop and a 30 s outage, with no text (protobuf)`, async () => {
      await scenario(name, 'protobuf');
    }, 240_000);
  }
});

describe('audit export set by the organisation policy', () => {
  for (const [name, launch] of [
    ['chromium', launchChromiumWithPolicy],
    ['firefox', launchFirefoxWithPolicy],
  ] as const) {
    it(`${name}: exports to the policy endpoint in the policy encoding (JSON) and shows both locked`, async () => {
      const receiver = await startOtlpReceiver();
      cleanups.push(() => receiver.close());
      const chat = await startMockChat({ chunkDelayMs: 2 });
      cleanups.push(() => chat.close());
      const target = await launch({ auditExport: { endpoint: receiver.url, encoding: 'json' } });
      try {
        // Chromium publishes a fresh install's 3rdparty policy a moment after the
        // extension starts: chat once the options page shows the policy in force.
        const extensionPage = await openExtensionPage(target, OPTIONS_PATH, 'main');
        const field = await extensionPage.waitForSelector('[data-testid="audit-export-endpoint"]');
        await extensionPage.waitForFunction(
          (url: string) => {
            const input = document.querySelector<HTMLInputElement>(
              '[data-testid="audit-export-endpoint"]',
            );
            return input?.value === url && input.disabled;
          },
          { timeout: 15_000 },
          receiver.url,
        );
        expect(
          await extensionPage.$('[data-testid="audit-export"] [data-testid="locked"]'),
        ).not.toBeNull();
        expect(await field?.evaluate((input) => (input as HTMLInputElement).disabled)).toBe(true);
        // The person's choice (protobuf) is overridden by the organisation's (JSON).
        await extensionPage.evaluate(async () => {
          await chrome.storage.local.set({ auditExport: { encoding: 'protobuf' } });
        });
        await extensionPage.waitForFunction(
          () => {
            const select = document.querySelector<HTMLSelectElement>(
              '[data-testid="audit-export-encoding"]',
            );
            return select?.value === 'json' && select.disabled;
          },
          { timeout: 5_000 },
        );

        const page = await target.browser.newPage();
        await page.goto(`${chat.url}/`, { waitUntil: 'load' });
        await page.waitForSelector('html[data-csg-bridge="on"]', { timeout: 10_000 });
        await askMockChat(page, 'show me the secret');
        const ids = await until(
          'the record to arrive at the policy endpoint',
          async () => {
            const { ids, queued } = await auditState(extensionPage);
            return ids.length > 0 && queued === 0 && receiver.records.length === ids.length
              ? ids
              : undefined;
          },
          20_000,
          async () =>
            JSON.stringify({
              requests: receiver.requests,
              state: await auditState(extensionPage),
              status: await extensionPage.evaluate(() =>
                chrome.storage.local.get('auditExportStatus'),
              ),
            }),
        );
        expect(receivedIds(receiver).map((id) => Number(id.split(':')[1]))).toEqual(ids);
        expect(receiver.requests.rejected).toBe(0);
        expect(receiver.encodings).toEqual({ json: receiver.requests.accepted, protobuf: 0 });
      } finally {
        await target.close();
      }
    }, 60_000);
  }
});
