/**
 * The MAIN world's send hook (src/page/outgoing-hook.ts) composed with the
 * ISOLATED world's request host (src/content/request-host.ts) the way
 * bridge.ts and main-world.ts wire them, minus the port: the reports and
 * questions the host sends are recorded in `sent`, and `answer` replies to
 * them asynchronously (as the marks and the confirm dialog do).
 */
import { createRequestHost } from '../../src/content/request-host.ts';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { createOutgoingHook } from '../../src/page/outgoing-hook.ts';
import type { GuardAnswer, GuardReport } from '../../src/protocol/guard-reports.ts';

export function hookWith(options: {
  connected?: boolean;
  answer?: (m: GuardReport) => GuardAnswer[];
}) {
  const sent: GuardReport[] = [];
  let n = 0;
  const record = (message: GuardReport) => {
    sent.push(message);
    // Answers arrive asynchronously, as from the confirm dialog.
    for (const reply of options.answer?.(message) ?? []) {
      queueMicrotask(() => host.receive(reply));
    }
  };
  const host = createRequestHost({
    setup: () => ({
      pack: getCorePack(),
      warm: true,
      policy: {},
      renderer: 'json',
      labels: () => undefined,
    }),
    ready: () => Promise.resolve(),
    warm: () => Promise.resolve(),
    report: record,
    ask: record,
    newId: () => `id${String(++n)}`,
    setTimeout: (callback, ms) => setTimeout(callback, ms),
  });
  const hook = createOutgoingHook({
    // Without the channel the MAIN world refuses every recognised request (remote-guard.ts).
    guard: async (request, body) => {
      if (options.connected === false) return { send: false };
      const outcome = await host.guard(request, body);
      return outcome.send ? { send: true, body: outcome.body } : { send: false };
    },
    baseUrl: () => 'https://chat.example/c/1',
  });
  return { hook, host, sent };
}
