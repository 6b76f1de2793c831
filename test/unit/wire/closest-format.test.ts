/**
 * The closest format of a response no adapter recognises (issue 20 §3):
 * scored by what of the response each registered adapter matches (URL, body
 * head, content type, events with text it reads), named with what was refused.
 */
import { describe, expect, it } from 'vitest';
import { adapterById, detectAdapter } from '../../../src/core/wire/adapter-registry.ts';
import { readsBytes } from '../../../src/core/wire/wire-event.ts';
import { captureProbe } from '../../../src/core/wire/capture-format.ts';
import { closestFormat, describeClosest } from '../../../src/core/wire/closest-format.ts';
import { onRoute } from '../../../src/core/wire/site-route-table.ts';
import { adapterCases } from '../../support/adapter-cases.ts';

const describeOf = (text: string, url?: string, contentType?: string) => {
  const probe = captureProbe({
    text,
    ...(url ? { url } : {}),
    ...(contentType ? { contentType } : {}),
  });
  expect(detectAdapter(probe)).toBeUndefined();
  const closest = closestFormat(probe, text);
  return { closest, line: describeClosest(closest, probe) };
};

describe('closest format of an unplaced response', () => {
  it('an OpenAI chat route answered with JSON that is not a completion: the URL matched, the rest refused', () => {
    const { closest, line } = describeOf(
      '{"id":"x1","object":"chat.completion.v9","result":{"output":"hello"}}',
      'https://api.example.com/v1/chat/completions',
    );
    expect(closest?.format).toBe('openai-chat');
    expect(line).toBe(
      'openai-chat [openai-chat-stream] (URL matches its route; refused: content type ' +
        'application/json is not SSE (text/event-stream), none of 1 events carries text ' +
        "it reads; first event's keys: id, object, result)",
    );
  });

  it("big-AGI's particles on an unknown route: its events carry text, its URL does not match", () => {
    const body =
      '{"json":[3,1,[[{"t":"hi"}]]]}\n{"json":[3,1,[[{"t":" there"}]]]}\n{"json":[3,0,[[]]]}\n';
    const { closest, line } = describeOf(body, 'https://agi.example.org/api/v2/generate');
    expect(closest?.format).toBe('big-agi');
    expect(line).toContain('2 of 3 events carry text it reads');
    expect(line).toContain('refused: URL is not one of its routes');
  });

  it('a body no format reads, on no known route: no closest format', () => {
    const { closest, line } = describeOf(
      'export const x = 1;\n',
      'https://cdn.example.com/app.js',
      'application/javascript',
    );
    expect(closest).toBeUndefined();
    expect(line).toBe('none (no format matches its URL, body or events)');
  });

  it('reads text in any body does not make a format close (the AI SDK text stream reads all text)', () => {
    const { closest } = describeOf('just some words\n', 'https://example.com/x', 'text/plain');
    expect(closest).toBeUndefined();
  });

  it('every site fixture replayed without its URL, if then unplaced, names its own format', () => {
    let checked = 0;
    for (const c of adapterCases()) {
      // The AI SDK text stream has no sign but its request (§1.7): nothing in a body is close.
      if (!c.guarded || c.probe === undefined || c.adapter === 'ai-sdk-text-stream') continue;
      // History paths whose body no document gives go to the generic adapter by URL alone
      // (site-routes.ts `history-unread`): without the URL nothing in such a body is a sign.
      if (c.adapter === 'generic' && onRoute('history-unread', c.probe.url)) continue;
      // A byte-level body (Kimi's Connect envelopes) is not text: its fixture cannot be read as such.
      if (readsBytes(adapterById(c.adapter) ?? { framing: 'sse' })) continue;
      const probe = captureProbe({ text: c.body, contentType: c.probe.contentType });
      if (detectAdapter(probe) !== undefined) continue;
      const closest = closestFormat(probe, c.body);
      const adapter = detectAdapter({ ...c.probe, head: c.body.slice(0, 1024) });
      expect(closest?.format, `${c.folder}/${c.file}`).toBe(adapter?.format);
      checked++;
    }
    // The site adapters known by URL alone (Grok, HuggingChat, Le Chat, Qwen Chat, big-AGI, …).
    expect(checked).toBeGreaterThanOrEqual(4);
  });
});
