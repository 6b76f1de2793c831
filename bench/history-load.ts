/**
 * The `browser.history` part of `npm run bench` (issue 19 §5, "Done when": history load
 * ratio ≤ 1.2): a page GETs a ChatGPT-web conversation document of about 5 MB
 * (`/backend-api/conversation/{id}`, the shape of WIRE-FORMATS.md §1.1 "History
 * render", 2,482 messages) and renders every visible message; the time from the
 * request to the frame after the last message is in the DOM, with and without the
 * extension, on the same loopback server and Chromium (browser-render.ts launches both).
 *
 * The document is deterministic (bench/seeded-random.ts): prose of a few hundred words
 * per message, alternating user and assistant, in one linear thread, as a long
 * conversation is. Nothing in it is a secret, so the extension's cost is the history
 * adapter's parse and locate, and the guard over every assistant message.
 */
import { SeededRandom } from './seeded-random.ts';
import { median } from './median.ts';

export const HISTORY_MESSAGES = 2_482;
export const HISTORY_BYTES = 5_000_000;
export const HISTORY_PATH = 'backend-api/conversation/6f1c2a4e-0b7d-4c55-9a43-2d8e5b7f9c10';
const SEED = 20261202;

const WORDS = (
  'the a of to in and for on with as by at from that this it is are was be will can should ' +
  'model stream answer question request response function value result error cache server ' +
  'client browser page data file line word number list table example step first next then ' +
  'because therefore while when where which how simple quick careful safe secure fast rule ' +
  'pattern match event state buffer release hold offset length start end input build test run'
).split(' ');

function prose(rnd: SeededRandom, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const word = WORDS[rnd.int(0, WORDS.length - 1)] as string;
    out.push(i % 14 === 13 ? `${word}.\n\n` : word);
  }
  return out.join(' ');
}

/** The conversation document, as the page's GET receives it. */
export function historyDocument(): string {
  const rnd = new SeededRandom(SEED);
  const mapping: Record<string, unknown> = {};
  const perMessage = Math.round(HISTORY_BYTES / HISTORY_MESSAGES);
  let parent: string | null = null;
  for (let i = 0; i < HISTORY_MESSAGES; i++) {
    const id = `node-${i.toString(16).padStart(6, '0')}`;
    const role = i % 2 === 0 ? 'user' : 'assistant';
    // Words average ~5.5 bytes with their space; the envelope of a message is ~400 bytes.
    const text = prose(rnd, Math.max(10, Math.round((perMessage - 400) / 5.5)));
    mapping[id] = {
      id,
      message: {
        id,
        author: { role, name: null, metadata: {} },
        create_time: 1764400000 + i,
        content: { content_type: 'text', parts: [text] },
        status: 'finished_successfully',
        end_turn: role === 'assistant' ? true : null,
        weight: 1,
        metadata: {},
        recipient: 'all',
      },
      parent,
      children: i + 1 < HISTORY_MESSAGES ? [`node-${(i + 1).toString(16).padStart(6, '0')}`] : [],
    };
    parent = id;
  }
  return JSON.stringify({
    title: 'A long conversation',
    create_time: 1764400000,
    mapping,
    current_node: parent,
    conversation_id: HISTORY_PATH.split('/').pop(),
  });
}

/** The page function: GET the document, render every message, resolve after a frame. */
export const HISTORY_SCRIPT = `
window.runHistory = async () => {
  const start = performance.now();
  const res = await fetch('/${HISTORY_PATH}');
  const doc = await res.json();
  const list = document.createElement('div');
  let messages = 0, chars = 0;
  for (const node of Object.values(doc.mapping)) {
    const m = node.message;
    if (!m || !m.content || !Array.isArray(m.content.parts)) continue;
    const div = document.createElement('div');
    div.className = m.author.role;
    div.textContent = m.content.parts.join('');
    chars += div.textContent.length;
    list.appendChild(div);
    messages++;
  }
  document.body.appendChild(list);
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const total_ms = performance.now() - start;
  list.remove();
  return { total_ms, messages, chars };
};`;

export interface HistoryRun {
  total_ms: number;
  messages: number;
  chars: number;
}

export interface HistoryReport {
  bytes: number;
  messages: number;
  without_ms: number;
  with_ms: number;
  /** with / without, median runs; target ≤ 1.2. */
  ratio: number;
  runs: { without: number[]; with: number[] };
}

export function historyReport(
  bytes: number,
  runs: { without: HistoryRun[]; with: HistoryRun[] },
): HistoryReport {
  const round = (v: number) => Math.round(v * 10) / 10;
  const without = median(runs.without.map((r) => r.total_ms));
  const withExtension = median(runs.with.map((r) => r.total_ms));
  return {
    bytes,
    messages: runs.without[0]?.messages ?? 0,
    without_ms: round(without),
    with_ms: round(withExtension),
    ratio: Math.round((withExtension / without) * 1000) / 1000,
    runs: {
      without: runs.without.map((r) => round(r.total_ms)),
      with: runs.with.map((r) => round(r.total_ms)),
    },
  };
}
