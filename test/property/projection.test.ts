/**
 * History projection properties (issue 5 §3, seed 001 §1, §7.1.2): for any
 * conversation, projecting twice changes nothing; the wording of the user's
 * new message never changes what is projected; roles, tool calls and their
 * ids and tool results are kept.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageText, readHistory } from '../../src/core/outgoing/history-messages.ts';
import { projectHistory } from '../../src/core/outgoing/project-history.ts';
import { getDefaultLabelPack } from '../../src/core/outgoing/source-label-pack.ts';
import { PROPERTY_RUNS } from '../support/text-arbitraries.ts';

const labels = getDefaultLabelPack();
const digest = (text: string) => createHmac('sha256', 'k').update(text).digest('hex');

/** Pieces models write: labels, comments long and short, sentence ends, URLs, paths, noise. */
const piece = fc.oneof(
  fc.constantFrom(
    '屏幕搭话：',
    '屏幕搭话 ',
    '【屏幕画面】',
    '[螢幕畫面]：',
    '【来源：截图】',
    '[Source: screen] ',
    ' (via feed)',
    'Screen comment: ',
    '屏幕',
    '搭话：',
    '这个视频画面好漂亮，色调很温柔呢。',
    '右下角那只猫好可爱……',
    'The cat on the left is sleeping quietly now. ',
    '嗯。',
    '好呀～',
    '“引号里的话。”',
    'https://host/屏幕搭话：a.png ',
    '/tmp/屏幕搭话：b.png ',
    '[屏幕画面](https://x.org) ',
    'example.com ',
    '\n',
  ),
  fc.string({ maxLength: 6 }),
);
const prose = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));

interface Turn {
  role: string;
  content: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

const assistantTurn = fc
  .tuple(
    fc.oneof(
      prose,
      fc.array(
        fc.oneof(
          prose.map((text) => ({ type: 'text', text })),
          fc.constant({ type: 'image_url', image_url: { url: 'https://img/x.png' } }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    ),
    fc.boolean(),
  )
  .map(([content, calls]): Turn[] => {
    if (!calls) return [{ role: 'assistant', content }];
    // Renumbered per conversation below.
    const id = 'call';
    return [
      {
        role: 'assistant',
        content,
        tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: id, content: 'result' },
    ];
  });
const userTurn = prose.map((content): Turn[] => [{ role: 'user', content }]);

const conversation = fc
  .array(fc.oneof({ weight: 3, arbitrary: assistantTurn }, { weight: 2, arbitrary: userTurn }), {
    maxLength: 8,
  })
  .map((turns) => {
    // Unique tool call ids, and the new user message last.
    let n = 0;
    const messages = turns.flat().map((m: Turn): Turn => {
      if (m.tool_calls !== undefined) n++;
      const id = `call_${n}`;
      if (m.tool_calls !== undefined) {
        return {
          ...m,
          tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
        };
      }
      return m.tool_call_id !== undefined ? { ...m, tool_call_id: id } : m;
    });
    return messages;
  });

const withMarks = fc
  .tuple(conversation, prose, fc.array(fc.nat(), { maxLength: 3 }))
  .map(([messages, newText, picks]) => {
    const all: Turn[] = [...messages, { role: 'user', content: newText }];
    const texts = readHistory({ messages: all }, 'openai-chat').map(messageText);
    const marked = new Set(picks.map((p) => digest(texts[p % texts.length] ?? '')));
    return { messages: all, marked };
  });

const project = (body: string, marked: ReadonlySet<string>) =>
  projectHistory(body, 'openai-chat', { labels, referenceOnly: marked, digest });

describe('history projection properties', { timeout: 300_000 }, () => {
  it('projecting twice changes nothing (idempotent)', () => {
    fc.assert(
      fc.property(withMarks, ({ messages, marked }) => {
        const once = project(JSON.stringify({ model: 'm', messages }), marked);
        // A text that becomes, after its labels go, the text of a message the person
        // marked is indistinguishable from it by digest; such inputs are left aside.
        const after = readHistory(JSON.parse(once.body), 'openai-chat').slice(0, -1);
        fc.pre(after.every((m) => !marked.has(digest(messageText(m)))));
        const twice = project(once.body, marked);
        expect(twice.body).toBe(once.body);
        expect(twice.changes).toEqual([]);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it("the wording of the user's new message never changes what is projected (seed 001 §1)", () => {
    fc.assert(
      fc.property(withMarks, prose, ({ messages, marked }, other) => {
        const reworded = [...messages.slice(0, -1), { role: 'user', content: other }];
        const a = JSON.parse(project(JSON.stringify({ messages }), marked).body) as {
          messages: unknown[];
        };
        const b = JSON.parse(project(JSON.stringify({ messages: reworded }), marked).body) as {
          messages: unknown[];
        };
        expect(b.messages.slice(0, -1)).toEqual(a.messages.slice(0, -1));
        expect(b.messages.at(-1)).toEqual({ role: 'user', content: other });
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('keeps roles in order, every tool call with its id, every tool result, and the new message', () => {
    fc.assert(
      fc.property(withMarks, ({ messages, marked }) => {
        const out = (
          JSON.parse(project(JSON.stringify({ messages }), marked).body) as { messages: Turn[] }
        ).messages;
        const calls = (list: Turn[]) => list.filter((m) => m.tool_calls !== undefined);
        expect(calls(out).map((m) => m.tool_calls)).toEqual(
          calls(messages).map((m) => m.tool_calls),
        );
        const tools = (list: Turn[]) => list.filter((m) => m.role === 'tool');
        expect(tools(out)).toEqual(tools(messages));
        expect(out.at(-1)).toEqual(messages.at(-1));
        // The output is the input with some messages left out, each kept one with its role.
        let j = 0;
        for (const m of out) {
          while (j < messages.length && (messages[j] as Turn).role !== m.role) j++;
          expect(j).toBeLessThan(messages.length);
          j++;
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
