/**
 * History projection on the request copy (issue 5 §3, seed 001 §7.1.2–7.1.3,
 * DESIGN.md §3.8). For clients that send the whole history, the copy that
 * leaves differs from what the page holds only in this:
 *
 * 1. Messages the person marked reference-only (by a keyed digest of their
 *    text, computed by the caller so the key stays outside core) are left out.
 *    The new message (the last user turn) and tool results are never left out.
 * 2. Source labels are stripped from every assistant message (§7.1.2
 *    "无条件去标签"); a message that held only labels is left out.
 * 3. A chain of two or more labelled comments keeps only the first, cut at its
 *    sentence end (§7.1.2 "成链截断"), within one message, or across the run of
 *    assistant messages right before the last user turn when a user turn
 *    precedes that run (§7.1.3 "跨消息尾部规则"; tool results break the run).
 *
 * A message left out that carries tool calls stays with its text emptied, so
 * tool call ids stay valid and the results answering them stay too; one with
 * images keeps them (§7.1.2 合同细则, §7.1.3 窄边界). Roles, ids, every other
 * field and every other byte are kept: edits are string replacements and
 * array element removals on the body text (`json-value-edit.ts`).
 *
 * Nothing depends on the wording of the user's message (seed 001 §1: no
 * phrase-based exemptions). The result holds no label, so projecting it again
 * changes nothing.
 */
import type { JsonEdit } from '../wire/json-value-edit.ts';
import { editJson } from '../wire/json-value-edit.ts';
import { type LabelledUnit, findChainCut } from './chain-truncation.ts';
import { codePointOffsetOf } from './code-point-offsets.ts';
import {
  type HistoryMessage,
  type HistoryShape,
  type HistoryText,
  historyListPath,
  historyShapeOf,
  messageText,
  readHistory,
} from './history-messages.ts';
import type { JsonPath } from '../wire/json-string-span.ts';
import { type LabelSpan, findLabels, stripAllLabels } from './label-spans.ts';
import type { CompiledLabelPack } from './source-label-pack.ts';

export type ProjectionReason = 'reference-only' | 'label-only' | 'label-chain';

/** What projection changed; offsets in code points of the original string, never text. */
export type ProjectionChange =
  | { action: 'drop'; reason: ProjectionReason; message: number }
  /** Left out of view but kept (tool calls, images): its text emptied. */
  | { action: 'empty'; reason: ProjectionReason; message: number }
  | {
      action: 'strip-label';
      rule: string;
      message: number;
      part: number | null;
      start: number;
      end: number;
    }
  | { action: 'truncate-chain'; message: number; part: number | null; start: number; end: number };

export interface ProjectionOptions {
  /** Digests of the messages marked reference-only. */
  referenceOnly?: ReadonlySet<string>;
  /** The keyed digest of a message's text (`messageText`); required with `referenceOnly`. */
  digest?: (text: string) => string;
  /** Source-label rules; without them no label is stripped and no chain is cut. */
  labels?: CompiledLabelPack;
}

export interface ProjectionResult {
  body: string;
  changes: ProjectionChange[];
}

/** Per message: its new texts (by text index), or left out. */
interface MessagePlan {
  texts: (string | undefined)[];
  out?: ProjectionReason;
}

function lastUserTurn(messages: readonly HistoryMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if ((messages[i] as HistoryMessage).role === 'user') return i;
  }
  return -1;
}

/** The §7.1.3 candidate run: assistant messages right before the last user turn, after a user turn. */
function tailRun(messages: readonly HistoryMessage[]): number[] {
  const last = lastUserTurn(messages);
  let start = last;
  while (start > 0 && messages[start - 1]?.role === 'assistant') start--;
  if (start === last || start === 0 || messages[start - 1]?.role !== 'user') return [];
  return Array.from({ length: last - start }, (_, k) => start + k);
}

class Projector {
  readonly plans = new Map<number, MessagePlan>();
  readonly changes: ProjectionChange[] = [];
  private readonly labelsOf = new Map<number, LabelSpan[][]>();
  /** Messages whose labels are already dealt with. */
  private readonly stripped = new Set<number>();

  constructor(
    private readonly messages: readonly HistoryMessage[],
    private readonly pack: CompiledLabelPack | undefined,
  ) {}

  private plan(i: number): MessagePlan {
    let plan = this.plans.get(i);
    if (plan === undefined) {
      plan = { texts: [] };
      this.plans.set(i, plan);
    }
    return plan;
  }

  labels(i: number): LabelSpan[][] {
    let found = this.labelsOf.get(i);
    if (found === undefined) {
      const m = this.messages[i] as HistoryMessage;
      const pack = this.pack;
      found = m.texts.map((t) => (pack === undefined ? [] : findLabels(pack, t.text)));
      this.labelsOf.set(i, found);
    }
    return found;
  }

  leaveOut(i: number, reason: ProjectionReason): void {
    this.plan(i).out ??= reason;
  }

  setText(i: number, t: number, text: string): void {
    this.plan(i).texts[t] = text;
  }

  /** Reports the labels of message `i` (only those before `cut`, when given) as changes. */
  private reportLabels(i: number, cut?: { text: number; at: number }): void {
    const m = this.messages[i] as HistoryMessage;
    this.labels(i).forEach((labels, k) => {
      const t = m.texts[k] as HistoryText;
      for (const l of labels) {
        if (cut !== undefined && (k > cut.text || (k === cut.text && l.start >= cut.at))) continue;
        this.changes.push({
          action: 'strip-label',
          rule: l.rule,
          message: i,
          part: t.part,
          start: codePointOffsetOf(t.text, l.start),
          end: codePointOffsetOf(t.text, l.end),
        });
      }
    });
  }

  /** Text `k` of message `i` without its labels (unchanged texts are not planned). */
  private stripText(i: number, k: number): void {
    const labels = this.labels(i)[k] ?? [];
    const t = this.messages[i]?.texts[k];
    if (labels.length > 0 && t !== undefined && this.pack !== undefined) {
      this.setText(i, k, stripAllLabels(this.pack, t.text, labels));
    }
  }

  private currentText(i: number): string {
    const m = this.messages[i] as HistoryMessage;
    return m.texts.map((t, k) => this.plan(i).texts[k] ?? t.text).join('');
  }

  /** Strips every label of message `i` (§7.1.2 无条件去标签); a message of labels only is left out. */
  stripLabels(i: number): void {
    if (this.stripped.has(i)) return;
    this.stripped.add(i);
    if (this.labels(i).every((l) => l.length === 0)) return;
    this.reportLabels(i);
    this.messages[i]?.texts.forEach((_, k) => this.stripText(i, k));
    if (this.currentText(i).trim() === '') this.leaveOut(i, 'label-only');
  }

  /** Applies a chain cut over the texts of `run` (message indices, in order), if they hold a chain. */
  cutChain(run: readonly number[]): void {
    if (this.pack === undefined) return;
    const units: { message: number; text: number }[] = [];
    const labelled: LabelledUnit[] = [];
    for (const i of run) {
      const labels = this.labels(i);
      this.messages[i]?.texts.forEach((t, k) => {
        units.push({ message: i, text: k });
        labelled.push({ text: t.text, labels: labels[k] ?? [] });
      });
    }
    const cut = findChainCut(labelled, this.pack);
    if (cut === null) return;
    const at = units[cut.unit] as { message: number; text: number };
    // Before the cut message: labels stripped, text kept.
    for (const i of run) if (i < at.message) this.stripLabels(i);
    // The cut message: earlier texts stripped, the cut text cut, later texts out.
    const m = this.messages[at.message] as HistoryMessage;
    this.stripped.add(at.message);
    this.reportLabels(at.message, { text: at.text, at: cut.at });
    const original = (m.texts[at.text] as HistoryText).text;
    this.changes.push({
      action: 'truncate-chain',
      message: at.message,
      part: (m.texts[at.text] as HistoryText).part,
      start: codePointOffsetOf(original, cut.at),
      end: codePointOffsetOf(original, original.length),
    });
    m.texts.forEach((_, k) => {
      if (k < at.text) this.stripText(at.message, k);
      else this.setText(at.message, k, k === at.text ? cut.kept : '');
    });
    if (this.currentText(at.message).trim() === '') this.leaveOut(at.message, 'label-chain');
    // After the cut message: out of view.
    for (const i of run) {
      if (i <= at.message) continue;
      this.stripped.add(i);
      this.leaveOut(i, 'label-chain');
    }
  }
}

function edits(
  messages: readonly HistoryMessage[],
  listPath: JsonPath,
  projector: Projector,
  changes: ProjectionChange[],
): JsonEdit[] {
  const strings: JsonEdit[] = [];
  const arrays: JsonEdit[] = [];
  const dropped = new Set<number>();
  for (const [i, plan] of [...projector.plans].sort((a, b) => a[0] - b[0])) {
    const m = messages[i] as HistoryMessage;
    // Tool calls must stay (their ids); images stay when only labels went (§7.1.3 窄边界),
    // but a message the person marked reference-only leaves with its images.
    const keep =
      plan.out === undefined ||
      m.carriesToolCalls ||
      (plan.out !== 'reference-only' && m.otherParts > 0);
    if (plan.out !== undefined) {
      changes.push({ action: keep ? 'empty' : 'drop', reason: plan.out, message: i });
      if (!keep) {
        dropped.add(i);
        continue;
      }
    }
    const texts = m.texts.map((t, k) => (plan.out === undefined ? (plan.texts[k] ?? t.text) : ''));
    const removedParts = new Set<number>();
    m.texts.forEach((t, k) => {
      const text = texts[k] as string;
      if (text === t.text) return;
      if (t.part !== null && text === '') removedParts.add(t.part);
      else strings.push({ path: t.path, json: JSON.stringify(text) });
    });
    if (removedParts.size === 0) continue;
    const content = m.contentPath;
    if (removedParts.size === m.texts.length && m.otherParts === 0) {
      strings.push({ path: content, json: m.emptyContent });
    } else {
      arrays.push({ path: content, keep: (j) => !removedParts.has(j) });
    }
  }
  const list: JsonEdit[] = [...strings, ...arrays];
  if (dropped.size > 0) list.push({ path: listPath, keep: (j) => !dropped.has(j) });
  return list;
}

/** Projects a request body of `format` (a HistoryFormat). Throws a SyntaxError on a body without a message list. */
export function projectHistory(
  body: string,
  format: string,
  options: ProjectionOptions = {},
): ProjectionResult {
  const shape: HistoryShape | undefined = historyShapeOf(format);
  if (shape === undefined) throw new Error(`no history projection for format "${format}"`);
  const json = JSON.parse(body) as unknown;
  const messages = readHistory(json, shape);
  const listPath = historyListPath(json, shape) ?? ['messages'];
  const projector = new Projector(messages, options.labels);
  const newTurn = lastUserTurn(messages);

  const marked = options.referenceOnly;
  if (marked !== undefined && marked.size > 0) {
    const digest = options.digest;
    if (digest === undefined) throw new Error('referenceOnly needs a digest function');
    for (const m of messages) {
      if (m.index === newTurn || m.role === 'tool' || m.role === 'system') continue;
      const text = messageText(m);
      if (text !== '' && marked.has(digest(text))) {
        projector.leaveOut(m.index, 'reference-only');
      }
    }
  }

  if (options.labels !== undefined) {
    const run = tailRun(messages);
    const inRun = new Set(run);
    if (run.length > 0) projector.cutChain(run);
    for (const m of messages) {
      if (m.role !== 'assistant') continue;
      if (!inRun.has(m.index)) projector.cutChain([m.index]);
      projector.stripLabels(m.index);
    }
  }

  const changes = projector.changes;
  const list = edits(messages, listPath, projector, changes);
  return { body: list.length === 0 ? body : editJson(body, list), changes };
}
