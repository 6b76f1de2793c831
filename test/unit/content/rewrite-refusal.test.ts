/**
 * Issue 20 §1: a site that refuses a request the guard rewrote is learned from the
 * answer's status (core/outgoing/rewrite-refusal.ts), reported and remembered
 * (content/rewrite-refusals.ts, rewrite-refusal-memory.ts,
 * protocol/rewrite-refusals.ts), and its sends are then asked about like Z.ai's
 * (outgoing-request-guard.ts `askInstead`). What the page reports is checked
 * (parse-page-message.ts), and a forged report cannot make anything the guard
 * would change leave without the person's choice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  REWRITE_REFUSAL_STATUSES,
  REWRITE_REFUSED_RULE,
  createRewriteWatch,
  isRewriteRefusal,
} from '../../../src/core/outgoing/rewrite-refusal.ts';
import { getDefaultLabelPack } from '../../../src/core/outgoing/source-label-pack.ts';
import { builtinPackJson, getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { openAiChatRequest } from '../../../src/core/wire/requests/message-list-requests.ts';
import {
  type OutgoingGuardDeps,
  type OutgoingMarks,
  type SendDecision,
  guardOutgoingRequestBody,
} from '../../../src/content/outgoing-request-guard.ts';
import { parsePageMessage } from '../../../src/content/parse-page-message.ts';
import { createRewriteRefusalMemory } from '../../../src/content/rewrite-refusal-memory.ts';
import {
  REWRITE_REFUSED_NOTICE,
  createRewriteRefusals,
} from '../../../src/content/rewrite-refusals.ts';
import {
  MAX_REWRITE_REFUSALS,
  REWRITE_REFUSALS_KEY,
  parseRewriteRefusals,
  withRewriteRefusal,
  withoutRewriteRefusal,
} from '../../../src/protocol/rewrite-refusals.ts';
import type { ContentToBackground } from '../../../src/protocol/runtime-messages.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { PROPERTY_RUNS, textArbitrary } from '../../support/text-arbitraries.ts';

describe('which answers are a refused rewrite', () => {
  it('counts the statuses a signature or body check answers with, not auth, rate, route or server errors', () => {
    for (const status of [400, 403, 409, 412, 422]) expect(isRewriteRefusal(status)).toBe(true);
    for (const status of [200, 204, 301, 401, 404, 405, 408, 410, 413, 429, 500, 502, 503]) {
      expect(isRewriteRefusal(status)).toBe(false);
    }
  });

  it('learns only from a request it saw rewritten, once', () => {
    const watch = createRewriteWatch();
    expect(watch.answered('never-sent', 403)).toBeUndefined();
    watch.rewritten('r1', 'openai-chat');
    expect(watch.answered('r1', 200)).toBeUndefined();
    // Answered already: a second (forged or repeated) status teaches nothing.
    expect(watch.answered('r1', 403)).toBeUndefined();
    watch.rewritten('r2', 'ollama');
    expect(watch.answered('r2', 422)).toEqual({ format: 'ollama', status: 422 });
    expect(watch.answered('r2', 422)).toBeUndefined();
  });

  it('forgets the oldest rewritten request beyond its limit', () => {
    const watch = createRewriteWatch(2);
    watch.rewritten('a', 'f');
    watch.rewritten('b', 'f');
    watch.rewritten('c', 'f');
    expect(watch.answered('a', 400)).toBeUndefined();
    expect(watch.answered('b', 400)).toEqual({ format: 'f', status: 400 });
    expect(watch.answered('c', 400)).toEqual({ format: 'f', status: 400 });
  });

  it('for any sequence of sends and answers: a refusal exactly for a waiting rewritten id with a refusal status', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('rewritten' as const), id: fc.constantFrom('a', 'b', 'c') }),
      fc.record({
        kind: fc.constant('answered' as const),
        id: fc.constantFrom('a', 'b', 'c', 'd'),
        status: fc.oneof(
          fc.constantFrom(...REWRITE_REFUSAL_STATUSES),
          fc.integer({ min: 100, max: 599 }),
        ),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const watch = createRewriteWatch();
        const waiting = new Set<string>();
        for (const s of steps) {
          if (s.kind === 'rewritten') {
            watch.rewritten(s.id, 'fmt');
            waiting.add(s.id);
            continue;
          }
          const expected = waiting.has(s.id) && REWRITE_REFUSAL_STATUSES.includes(s.status);
          const got = watch.answered(s.id, s.status);
          expect(got !== undefined).toBe(expected);
          waiting.delete(s.id);
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

describe('the remembered sites (storage)', () => {
  const record = { format: 'openai-chat', status: 403, at: 1 };

  it('keeps well-formed entries only', () => {
    expect(
      parseRewriteRefusals({
        'chat.example': record,
        'Bad Host': record,
        'a.example': { ...record, status: 200 },
        'b.example': { ...record, format: 'x'.repeat(100) },
        'c.example': 'no',
      }),
    ).toEqual({ 'chat.example': record });
    expect(parseRewriteRefusals(null)).toEqual({});
    expect(parseRewriteRefusals([record])).toEqual({});
  });

  it('for any stored value, parsing never throws and keeps only valid entries', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue()), (a, b) => {
        for (const value of [a, b]) {
          for (const entry of Object.values(parseRewriteRefusals(value))) {
            expect(entry.status).toBeGreaterThanOrEqual(400);
            expect(entry.status).toBeLessThanOrEqual(499);
          }
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('adds, replaces, caps at the newest MAX_REWRITE_REFUSALS, and resets one site', () => {
    let map = {};
    for (let i = 0; i < MAX_REWRITE_REFUSALS + 5; i++) {
      map = withRewriteRefusal(map, `s${String(i)}.example`, { ...record, at: i });
    }
    expect(Object.keys(map)).toHaveLength(MAX_REWRITE_REFUSALS);
    expect(map).not.toHaveProperty('s0.example');
    expect(map).toHaveProperty(`s${String(MAX_REWRITE_REFUSALS + 4)}.example`);
    const replaced = withRewriteRefusal(map, 's10.example', { ...record, status: 422, at: 999 });
    expect(Object.keys(replaced)).toHaveLength(MAX_REWRITE_REFUSALS);
    expect(withoutRewriteRefusal(replaced, 's10.example')).not.toHaveProperty('s10.example');
  });

  it('the page memory reads its own site, and a reset applies to the next read', async () => {
    const area: Record<string, unknown> = {};
    const storage = {
      get: (key: string) => Promise.resolve({ [key]: area[key] }),
      set: (items: Record<string, unknown>) => {
        Object.assign(area, items);
        return Promise.resolve();
      },
    };
    const here = createRewriteRefusalMemory(storage, 'chat.example');
    const other = createRewriteRefusalMemory(storage, 'other.example');
    expect(await here.refuses()).toBe(false);
    await here.remember(record);
    expect(await here.refuses()).toBe(true);
    expect(await other.refuses()).toBe(false);
    area[REWRITE_REFUSALS_KEY] = withoutRewriteRefusal(
      parseRewriteRefusals(area[REWRITE_REFUSALS_KEY]),
      'chat.example',
    );
    expect(await here.refuses()).toBe(false);
  });
});

describe('the bridge on a refused rewrite', () => {
  function bridge() {
    const reports: ContentToBackground[] = [];
    const notices: { key: string; text: string; tone: string }[] = [];
    const remembered: unknown[] = [];
    let n = 0;
    const refusals = createRewriteRefusals({
      report: (m) => reports.push(m),
      notice: (key, text, tone) => notices.push({ key, text, tone }),
      translate: (key) => `<${key}>`,
      remember: (r) => {
        remembered.push(r);
        return Promise.resolve();
      },
      newId: () => `s${String(++n)}`,
      now: () => 42,
    });
    return { refusals, reports, notices, remembered };
  }

  it('a rewritten request refused: an audit record (no content), the notice, the site remembered', () => {
    const b = bridge();
    b.refusals.sent('r1', 'openai-chat', '{"page":1}', '{"guarded":1}');
    expect(b.refusals.answered('r1', 403)).toEqual({ format: 'openai-chat', status: 403 });
    expect(b.reports).toEqual([
      {
        to: 'background',
        type: 'guard-events',
        stream: {
          streamId: 's1',
          direction: 'out',
          format: 'openai-chat',
          conversationId: '',
          turnId: '',
        },
        events: [expect.objectContaining({ type: 'error', rule: REWRITE_REFUSED_RULE })],
      },
      { to: 'background', type: 'stream-end', streamId: 's1', outcome: 'complete' },
    ]);
    expect(b.notices).toEqual([
      { key: 's1:rewrite-refused', text: `<${REWRITE_REFUSED_NOTICE}>`, tone: 'warning' },
    ]);
    expect(b.remembered).toEqual([{ format: 'openai-chat', status: 403, at: 42 }]);
  });

  it('an unchanged request, an unknown id or an accepted answer teaches nothing', () => {
    const b = bridge();
    b.refusals.sent('same', 'openai-chat', '{"a":1}', '{"a":1}');
    expect(b.refusals.answered('same', 400)).toBeUndefined();
    expect(b.refusals.answered('forged', 403)).toBeUndefined();
    b.refusals.sent('ok', 'openai-chat', '{"a":1}', '{"a":2}');
    expect(b.refusals.answered('ok', 200)).toBeUndefined();
    expect([b.reports, b.notices, b.remembered]).toEqual([[], [], []]);
  });

  it('the page reports status only, checked field by field', () => {
    const ok = { v: 1, type: 'request-answered', requestId: 'abc_1', status: 403 };
    expect(parsePageMessage(ok)).toEqual(ok);
    expect(parsePageMessage({ ...ok, extra: 'text' })).toEqual(ok);
    for (const bad of [
      { ...ok, status: '403' },
      { ...ok, status: 403.5 },
      { ...ok, status: 99 },
      { ...ok, status: 600 },
      { ...ok, requestId: 'has space' },
      { ...ok, requestId: 'x'.repeat(65) },
    ]) {
      expect(parsePageMessage(bad)).toBeUndefined();
    }
  });
});

describe('a site that refuses rewrites is asked about, not rewritten', () => {
  const bodyOf = (messages: { role: string; content: string }[]) =>
    JSON.stringify({ model: 'm', stream: true, messages });

  function harness(options: { askInstead: boolean; answer?: SendDecision; marks?: OutgoingMarks }) {
    const asked: { rules: string[]; bound: boolean | undefined }[] = [];
    const setup = () => ({
      pack: getCorePack(),
      warm: true,
      policy: {},
      renderer: 'json' as const,
      labels: () => getDefaultLabelPack(),
    });
    const deps: OutgoingGuardDeps = {
      setup,
      warmSetup: () => Promise.resolve(setup()),
      lookup: () => Promise.resolve(options.marks ?? { pasted: [], referenceOnly: [] }),
      confirm: (findings, bound) => {
        asked.push({ rules: findings.map((f) => f.rule), bound });
        return Promise.resolve(options.answer ?? 'cancel');
      },
      report: () => undefined,
      askInstead: options.askInstead,
    };
    return { deps, asked };
  }

  it('a secret: redacted as usual, but asked about on a site that refuses rewrites', async () => {
    const token = fakeGithubToken(91);
    const body = bodyOf([{ role: 'user', content: `deploy ${token}` }]);
    const usual = await guardOutgoingRequestBody(
      openAiChatRequest,
      body,
      harness({ askInstead: false }).deps,
    );
    expect(usual.send && usual.body).not.toContain(token);
    const yes = harness({ askInstead: true, answer: 'send' });
    expect(await guardOutgoingRequestBody(openAiChatRequest, body, yes.deps)).toEqual({
      send: true,
      body,
    });
    expect(yes.asked).toEqual([{ rules: ['github-pat'], bound: true }]);
    for (const answer of ['cancel', 'edit'] as const) {
      const no = harness({ askInstead: true, answer });
      expect(await guardOutgoingRequestBody(openAiChatRequest, body, no.deps)).toEqual({
        send: false,
        reason: 'cancelled',
      });
    }
  });

  it('a reference-only message projection would leave out is asked about too, never sent in silence', async () => {
    const body = bodyOf([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'an old answer' },
      { role: 'user', content: 'next question' },
    ]);
    const marks = { pasted: [], referenceOnly: [1] };
    const no = harness({ askInstead: true, marks });
    expect(await guardOutgoingRequestBody(openAiChatRequest, body, no.deps)).toEqual({
      send: false,
      reason: 'cancelled',
    });
    expect(no.asked).toEqual([{ rules: [], bound: true }]);
  });

  it("for any text, on such a site what leaves is the page's own body, only when unchanged by the guard or chosen by the person", async () => {
    await fc.assert(
      fc.asyncProperty(textArbitrary(builtinPackJson()), fc.boolean(), async (text, secret) => {
        const content = secret ? `${text} ${fakeGithubToken(7)}` : text;
        const body = bodyOf([{ role: 'user', content }]);
        const h = harness({ askInstead: true, answer: 'cancel' });
        const outcome = await guardOutgoingRequestBody(openAiChatRequest, body, h.deps);
        if (outcome.send) {
          expect(outcome.body).toBe(body);
          expect(h.asked).toEqual([]);
        } else {
          expect(h.asked.length).toBeGreaterThan(0);
        }
        if (secret) expect(outcome.send).toBe(false);
      }),
      // Each run scans the text with the whole core pack: a tenth of the runs, as
      // integrity-bound-send.test.ts does; the machine is shared, hence the timeout.
      { numRuns: PROPERTY_RUNS / 10 },
    );
  }, 120_000);
});
