import { describe, expect, it } from 'vitest';
import {
  KEYWORD_FREE_MAX_UNITS,
  guardOutgoingBody,
  guardOutgoingRequest,
  outgoingKeywordFree,
} from '../../../src/core/outgoing/outgoing-dlp.ts';
import { getCorePack } from '../../../src/core/rules/builtin-packs.ts';
import { compilePack } from '../../../src/core/rules/compile-pack.ts';
import {
  anthropicRequest,
  openAiChatRequest,
} from '../../../src/core/wire/requests/message-list-requests.ts';

/**
 * A GitHub classic token built from mixed pieces at run time: the shipped rule
 * rejects placeholder-like repetitions, so the shared `githubPat()` (one
 * repeated block) is not used here.
 */
const githubPat = (): string =>
  'gh' + 'p_' + ['Zq8vK2', 'mX9pL4', 'nR7tW1', 'yB5cD3', 'fG6hJ0', 'sE8aUx'].join('');

/** A pack with one rule per outgoing action under test, independent of the shipped packs. */
const pack = compilePack({
  name: 'dlp-test',
  version: '1',
  rules: [
    {
      id: 'test-token',
      kind: 'secret',
      description: 'tok- and twelve digits',
      pattern: 'tok-[0-9]{12}',
      keywords: ['tok-'],
      action: 'redact',
      examples: { match: ['tok-123456789012'], noMatch: ['tok-1'] },
    },
    {
      id: 'test-member-id',
      kind: 'pii',
      description: 'MBR and six digits',
      pattern: 'MBR[0-9]{6}',
      keywords: ['MBR'],
      action: 'redact',
      examples: { match: ['MBR123456'], noMatch: ['MBR12'] },
    },
  ],
});
const token = () => 'tok-' + '40'.repeat(6);
const member = () => 'MBR' + '7'.repeat(6);

const chatBody = (newText: string, history = 'earlier tok-' + '1'.repeat(12)) =>
  JSON.stringify({
    model: 'm',
    stream: true,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: history },
      { role: 'assistant', content: 'ok' },
      {
        role: 'user',
        content: [
          { type: 'text', text: newText },
          { type: 'image_url', image_url: { url: 'data:x' } },
        ],
      },
    ],
  });

describe('guardOutgoingBody', () => {
  it('redacts a secret in the new message only, every other byte kept', () => {
    const body = chatBody(`here ${token()} ok`);
    const r = guardOutgoingBody(openAiChatRequest, body, { pack });
    expect(r.decision).toBe('redact');
    expect(r.body).toBe(body.replace(token(), '[redacted:test-token]'));
    // The history's token is not the new text: untouched by DLP.
    expect(r.body).toContain('earlier tok-' + '1'.repeat(12));
    expect(r.findings).toEqual([
      {
        rule: 'test-token',
        kind: 'secret',
        action: 'redact',
        part: 'new',
        message: 3,
        path: ['messages', 3, 'content', 0, 'text'],
        start: 5,
        end: 21,
        text: token(),
      },
    ]);
  });

  it('warns on personal data by default: body keeps it, redactions of other kinds still apply', () => {
    const body = chatBody(`id ${member()} and ${token()}`);
    const r = guardOutgoingBody(openAiChatRequest, body, { pack });
    expect(r.decision).toBe('warn');
    expect(r.body).toContain(member());
    expect(r.body).not.toContain(token());
    expect(r.findings.map((f) => [f.rule, f.action])).toEqual([
      ['test-member-id', 'warn'],
      ['test-token', 'redact'],
    ]);
  });

  it('blocks per policy and returns the unchanged body', () => {
    const body = chatBody(`x ${member()}`);
    const r = guardOutgoingBody(openAiChatRequest, body, { pack, policy: { pii: 'block' } });
    expect(r.decision).toBe('block');
    expect(r.body).toBe(body);
  });

  it('off switches a kind off; nothing found means send with the same body', () => {
    const body = chatBody(`x ${token()}`);
    const r = guardOutgoingBody(openAiChatRequest, body, { pack, policy: { secret: 'off' } });
    expect(r).toMatchObject({ decision: 'send', body, findings: [] });
    const clean = chatBody('nothing here');
    expect(guardOutgoingBody(openAiChatRequest, clean, { pack })).toMatchObject({
      decision: 'send',
      body: clean,
    });
  });

  it('checks other parts only when asked (history, system)', () => {
    const body = chatBody('clean');
    expect(guardOutgoingBody(openAiChatRequest, body, { pack }).decision).toBe('send');
    const r = guardOutgoingBody(openAiChatRequest, body, { pack, parts: ['history'] });
    expect(r.findings.map((f) => [f.part, f.message])).toEqual([['history', 1]]);
  });

  it('reads Anthropic bodies through their adapter', () => {
    const body = JSON.stringify({
      system: 'sys',
      messages: [{ role: 'user', content: [{ type: 'text', text: `k ${token()}` }] }],
    });
    const r = guardOutgoingBody(anthropicRequest, body, { pack });
    expect(JSON.parse(r.body)).toEqual({
      system: 'sys',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'k [redacted:test-token]' }] }],
    });
  });

  it('offsets count code points and the matched text is sliced by them', () => {
    const body = chatBody(`😀😀 ${token()}`);
    const f = guardOutgoingBody(openAiChatRequest, body, { pack }).findings[0];
    expect(f).toMatchObject({ start: 3, end: 19, text: token() });
  });
});

describe('guardOutgoingRequest', () => {
  it('detects the request adapter from the URL, and also guards attachments (Claude.ai)', () => {
    const body = JSON.stringify({
      prompt: 'see file',
      attachments: [{ file_name: 'a.txt', extracted_content: `cfg ${token()}` }],
    });
    const r = guardOutgoingRequest(
      {
        url: 'https://claude.ai/api/organizations/o/chat_conversations/c/completion',
        method: 'POST',
        contentType: 'application/json',
      },
      body,
      { pack },
    );
    expect(r.format).toBe('claude-web');
    expect(r.findings[0]).toMatchObject({ part: 'attachment', rule: 'test-token' });
    expect(r.body).toBe(body.replace(token(), '[redacted:test-token]'));
  });

  it('passes a request no adapter recognises, saying so (format null)', () => {
    const body = JSON.stringify({ text: token() });
    const r = guardOutgoingRequest(
      { url: 'https://example.org/form', method: 'POST', contentType: 'application/json' },
      body,
      { pack },
    );
    expect(r).toEqual({ decision: 'send', body, findings: [], format: null });
  });

  it('with the shipped packs, a GitHub token in a ChatGPT send is redacted in the copy', () => {
    const pat = githubPat();
    const body = JSON.stringify({
      action: 'next',
      messages: [
        {
          id: 'u1',
          author: { role: 'user' },
          content: { content_type: 'text', parts: [`pat ${pat}`] },
        },
      ],
      parent_message_id: 'p',
    });
    const r = guardOutgoingRequest(
      {
        url: 'https://chatgpt.com/backend-api/f/conversation',
        method: 'POST',
        contentType: 'application/json',
      },
      body,
      { pack: getCorePack() },
    );
    expect(r.decision).toBe('redact');
    expect(r.body).not.toContain(pat);
    expect(r.findings[0]).toMatchObject({ kind: 'secret', action: 'redact', text: pat });
  });
});

describe('outgoingKeywordFree', () => {
  const core = getCorePack();
  const mail = ['jane.doe', 'mailbox.org'].join('@');

  it('accepts a short body whose new text holds no keyword, and scans it the same without keyword rules', () => {
    const body = chatBody(`mail ${mail}`);
    // The history's token is not scanned on send, so its keyword does not count.
    expect(outgoingKeywordFree(openAiChatRequest, body, { pack })).toBe(true);
    expect(outgoingKeywordFree(openAiChatRequest, body, { pack: core })).toBe(true);
    const full = guardOutgoingBody(openAiChatRequest, body, { pack: core });
    expect(full.findings.map((f) => f.rule)).toEqual(['email-address']);
    expect(guardOutgoingBody(openAiChatRequest, body, { pack: core, alwaysOnOnly: true })).toEqual(
      full,
    );
  });

  it('refuses a body with a keyword of a rule the policy keeps on, in any case', () => {
    expect(outgoingKeywordFree(openAiChatRequest, chatBody('see TOK-1'), { pack })).toBe(false);
    expect(outgoingKeywordFree(openAiChatRequest, chatBody('mbr'), { pack })).toBe(false);
    const offPii = { pack, policy: { pii: 'off' as const } };
    expect(outgoingKeywordFree(openAiChatRequest, chatBody('mbr'), offPii)).toBe(true);
  });

  it('refuses a body longer than it looks through', () => {
    const long = 'a'.repeat(KEYWORD_FREE_MAX_UNITS + 1);
    expect(outgoingKeywordFree(openAiChatRequest, chatBody(long), { pack })).toBe(false);
    const atLimit = 'a'.repeat(KEYWORD_FREE_MAX_UNITS);
    expect(outgoingKeywordFree(openAiChatRequest, chatBody(atLimit), { pack })).toBe(true);
  });
});
