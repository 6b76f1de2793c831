/**
 * Integrity-bound sends (issue 20; WIRE-FORMATS-2.md §0.2, §3.5): Z.ai signs
 * the person's text, so the outgoing guard never rewrites the request copy.
 * Where it would redact, wrap a pasted span, or warn, it asks (send as typed,
 * edit, or cancel); a block still blocks. Checked against the mock Z.ai
 * endpoint's own signature check (test/mock-chat/zai-signature.ts): whatever
 * leaves is accepted, and the same request rewritten the ordinary way is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDefaultLabelPack } from '../../../src/core/outgoing/source-label-pack.ts';
import { builtinPackJson, getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { integrityBoundFormatOf } from '../../../src/core/wire/requests/integrity-bound-sites.ts';
import { requestRecognisersInOrder } from '../../../src/core/wire/requests/request-recognisers.ts';
import { requestAdapters } from '../../../src/core/wire/requests/request-registry.ts';
import { guardOutgoingBody } from '../../../src/core/outgoing/outgoing-dlp.ts';
import { zaiRequest } from '../../../src/core/wire/requests/zai-request.ts';
import {
  type OutgoingGuardDeps,
  type OutgoingMarks,
  type SendDecision,
  guardOutgoingRequestBody,
} from '../../../src/content/outgoing-request-guard.ts';
import type { PageGuardEvent } from '../../../src/protocol/guard-reports.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';
import { zaiSignature, zaiSignatureMatches } from '../../mock-chat/zai-signature.ts';
import { PROPERTY_RUNS, textArbitrary } from '../../support/text-arbitraries.ts';

const SIGNED = { requestId: 'req-1', timestamp: '1764670000000', userId: 'user-1' };

/** A Z.ai send as the page builds it, and its signature. */
function zaiSend(prompt: string) {
  const body = JSON.stringify({
    stream: true,
    model: 'glm-4.6',
    messages: [{ role: 'user', content: prompt }],
    signature_prompt: prompt,
    features: { enable_thinking: true },
  });
  return { body, signature: zaiSignature({ ...SIGNED, prompt }) };
}

/** The mock endpoint's check: the signature binds the text the body carries. */
function accepted(body: string, signature: string): boolean {
  const json = JSON.parse(body) as { messages: { content: string }[]; signature_prompt: string };
  if (json.messages.at(-1)?.content !== json.signature_prompt) return false;
  return zaiSignatureMatches({ ...SIGNED, prompt: json.signature_prompt }, signature);
}

function harness(
  options: { answer?: SendDecision; marks?: OutgoingMarks; policy?: Record<string, string> } = {},
) {
  const asked: { rules: string[]; bound: boolean | undefined }[] = [];
  const reports: PageGuardEvent[] = [];
  const setup = () => ({
    pack: getCorePack(),
    warm: true,
    policy: options.policy ?? {},
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
    report: (_format, events) => reports.push(...events),
  };
  return { deps, asked, reports };
}

describe('an integrity-bound send (Z.ai)', () => {
  const token = fakeGithubToken(31);
  const prompt = `deploy with ${token} please`;

  it('the ordinary rewrite would be rejected by the endpoint: that is what the flag prevents', () => {
    const { body, signature } = zaiSend(prompt);
    expect(accepted(body, signature)).toBe(true);
    const rewritten = guardOutgoingBody(zaiRequest, body, { pack: getCorePack() });
    expect(rewritten.decision).toBe('redact');
    expect(accepted(rewritten.body, signature)).toBe(false);
  });

  it('asks instead of redacting; "send as typed" sends the page\'s own bytes, which the endpoint accepts', async () => {
    const { body, signature } = zaiSend(prompt);
    const h = harness({ answer: 'send' });
    const outcome = await guardOutgoingRequestBody(zaiRequest, body, h.deps);
    expect(outcome).toEqual({ send: true, body });
    expect(accepted(body, signature)).toBe(true);
    expect(h.asked).toEqual([{ rules: ['github-pat', 'github-pat'], bound: true }]);
    // Reported as asked about, not as redacted: the copy was not changed.
    expect(h.reports.map((e) => (e.type === 'match' ? e.action : e.type))).toEqual([
      'warn',
      'warn',
    ]);
  });

  it('"edit" and "cancel" send nothing', async () => {
    for (const answer of ['edit', 'cancel'] as const) {
      const h = harness({ answer });
      const outcome = await guardOutgoingRequestBody(zaiRequest, zaiSend(prompt).body, h.deps);
      expect(outcome).toEqual({ send: false, reason: 'cancelled' });
    }
  });

  it('a pasted span it would wrap asks too (the envelope would change the signed text)', async () => {
    const pasted = 'a pasted paragraph from a web page, long enough to remember';
    const { body } = zaiSend(`see: ${pasted}`);
    const h = harness({ answer: 'send', marks: { pasted: [pasted], referenceOnly: [] } });
    expect(await guardOutgoingRequestBody(zaiRequest, body, h.deps)).toEqual({ send: true, body });
    expect(h.asked).toEqual([{ rules: [], bound: true }]);
  });

  it('a block still blocks, without asking', async () => {
    const h = harness({ policy: { secret: 'block' } });
    const outcome = await guardOutgoingRequestBody(zaiRequest, zaiSend(prompt).body, h.deps);
    expect(outcome).toEqual({ send: false, reason: 'blocked' });
    expect(h.asked).toEqual([]);
  });

  it("for any message, what leaves is the page's own body (accepted) or nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        textArbitrary(builtinPackJson()),
        fc.constantFrom<SendDecision>('send', 'edit'),
        async (text, answer) => {
          const { body, signature } = zaiSend(text);
          const h = harness({ answer });
          const outcome = await guardOutgoingRequestBody(zaiRequest, body, h.deps);
          if (outcome.send) {
            expect(outcome.body).toBe(body);
            expect(accepted(outcome.body, signature)).toBe(true);
          } else {
            expect(h.asked).toHaveLength(1);
          }
          // Nothing found: sent at once, never asked.
          if (h.asked.length === 0) expect(outcome).toEqual({ send: true, body });
        },
      ),
      // Each run scans the text with the whole core pack: a tenth of the runs, as
      // outgoing-request-guard.test.ts does; the machine is shared, hence the timeout.
      { numRuns: PROPERTY_RUNS / 10 },
    );
  }, 120_000);
});

describe('where integrity-bound sends are known', () => {
  it("only Z.ai's sends are flagged, and its site is in the popup's table", () => {
    const bound = requestRecognisersInOrder.filter((r) => r.integrityBound === true);
    // The signed completion, and the chat creation carrying the first message (§3.5).
    expect(bound.map((r) => r.name)).toEqual(['zai', 'zai-chats-new']);
    expect(integrityBoundFormatOf('chat.z.ai')).toBe('zai');
    expect(integrityBoundFormatOf('chatglm.cn')).toBeUndefined();
    expect(integrityBoundFormatOf(undefined)).toBeUndefined();
    // Each site's format is a request adapter that carries the flag.
    const adapter = requestAdapters.find((a) => a.name === integrityBoundFormatOf('chat.z.ai'));
    expect(adapter?.integrityBound).toBe(true);
    expect(
      adapter?.detect({
        url: 'https://chat.z.ai/api/v2/chat/completions?requestId=r',
        method: 'POST',
        contentType: 'application/json',
      }),
    ).toBe(true);
  });
});
