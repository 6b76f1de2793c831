/**
 * Z.ai's `POST /api/v1/chats/new` (WIRE-FORMATS-2.md §3.5): the chat is created
 * with the first message in `chat.history.messages` (and, as Open WebUI builds
 * the document, in `chat.messages`) before the signed completion is sent. The
 * body below follows that shape. It is recognised on the send side and,
 * integrity-bound like the signed send, asked about and never rewritten.
 */
import { describe, expect, it } from 'vitest';
import { getDefaultLabelPack } from '../../../src/core/outgoing/source-label-pack.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { detectRequestAdapter } from '../../../src/core/wire/requests/request-registry.ts';
import { recogniseRequest } from '../../../src/core/wire/requests/request-recognisers.ts';
import { zaiChatsNewRequest } from '../../../src/core/wire/requests/zai-request.ts';
import {
  type OutgoingGuardDeps,
  type SendDecision,
  guardOutgoingRequestBody,
} from '../../../src/content/outgoing-request-guard.ts';
import { fakeGithubToken } from '../../mock-chat/scripted-answers.ts';

const URL_NEW = 'https://chat.z.ai/api/v1/chats/new';

/** A `chats/new` body as §3.5 describes it: the first user message, twice. */
function newChat(prompt: string): string {
  const message = {
    id: 'u-1',
    parentId: null,
    childrenIds: [],
    role: 'user',
    content: prompt,
    timestamp: 1764670000,
    models: ['glm-4.6'],
  };
  return JSON.stringify({
    chat: {
      id: '',
      title: 'New Chat',
      models: ['glm-4.6'],
      params: {},
      history: { messages: { 'u-1': message }, currentId: 'u-1' },
      messages: [message],
      tags: [],
      flags: [],
      features: [{ type: 'mcp', server: 'vibe-coding', status: 'hidden' }],
      enable_thinking: true,
      timestamp: 1764670000000,
    },
  });
}

function harness(answer: SendDecision) {
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
    lookup: () => Promise.resolve({ pasted: [], referenceOnly: [] }),
    confirm: (findings, bound) => {
      asked.push({ rules: findings.map((f) => f.rule), bound });
      return Promise.resolve(answer);
    },
    report: () => undefined,
  };
  return { deps, asked };
}

describe("Z.ai's chat creation (§3.5)", () => {
  const post = { url: URL_NEW, method: 'POST', contentType: 'application/json' };

  it('is recognised on its route as an integrity-bound send, by the page and the guard alike', () => {
    expect(recogniseRequest(post)?.name).toBe('zai-chats-new');
    expect(detectRequestAdapter(post)?.name).toBe('zai-chats-new');
    expect(detectRequestAdapter(post)?.integrityBound).toBe(true);
    expect(recogniseRequest({ ...post, method: 'GET' })?.name).not.toBe('zai-chats-new');
    // Open WebUI's own route on another host is not Z.ai's.
    const other = { ...post, url: 'https://webui.example/api/v1/chats/new' };
    expect(recogniseRequest(other)?.name).not.toBe('zai-chats-new');
  });

  it("locates the first message in both copies, as the user's new text", () => {
    const texts = zaiChatsNewRequest.locate(newChat('hello there'));
    expect(texts).toEqual([
      {
        path: ['chat', 'messages', 0, 'content'],
        text: 'hello there',
        role: 'user',
        part: 'new',
        message: 0,
      },
      {
        path: ['chat', 'history', 'messages', 'u-1', 'content'],
        text: 'hello there',
        role: 'user',
        part: 'new',
        message: 0,
      },
    ]);
  });

  it('rejects a body without a chat object (not what detect promised)', () => {
    expect(() => zaiChatsNewRequest.locate('{"title":"x"}')).toThrow(SyntaxError);
  });

  it("asks instead of redacting, and 'send as typed' sends the page's own bytes", async () => {
    const body = newChat(`deploy with ${fakeGithubToken(7)} please`);
    const h = harness('send');
    expect(await guardOutgoingRequestBody(zaiChatsNewRequest, body, h.deps)).toEqual({
      send: true,
      body,
    });
    expect(h.asked).toEqual([{ rules: ['github-pat', 'github-pat'], bound: true }]);
    const cancel = harness('cancel');
    expect(await guardOutgoingRequestBody(zaiChatsNewRequest, body, cancel.deps)).toEqual({
      send: false,
      reason: 'cancelled',
    });
  });

  it('a clean first message goes out at once, unasked', async () => {
    const body = newChat('what is the capital of France?');
    const h = harness('cancel');
    expect(await guardOutgoingRequestBody(zaiChatsNewRequest, body, h.deps)).toEqual({
      send: true,
      body,
    });
    expect(h.asked).toEqual([]);
  });
});
