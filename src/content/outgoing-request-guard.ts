/**
 * What the MAIN world does to a request body a request adapter recognised,
 * before it leaves (issue 5 §1–3). Works on the body TEXT of the copy that
 * will be sent; the page's own objects are never touched (DESIGN.md §3.8).
 *
 * Order, and why:
 * 1. Ask the bridge which of the request's texts it has marks for (pasted
 *    spans; reference-only messages). The key of the reference-only digests
 *    stays in the ISOLATED world: the MAIN world sends the message texts of
 *    THIS request and gets back indices (content/outgoing-marks-lookup.ts), so
 *    the digest is computed on exactly the text the request carries.
 * 2. Paste envelopes on the person's new text: each remembered span found in
 *    it is wrapped, with one fresh fence for the whole request (seed 004 §3).
 *    Wrapping comes before DLP so the span is found as it was pasted; DLP then
 *    still sees (and redacts) a secret inside the pasted document, since the
 *    json renderer keeps ordinary characters raw on its body line.
 * 3. DLP with the outgoing policy: redact in the copy, or warn (the person
 *    decides in the bridge's dialog), or block.
 * 4. History projection (reference-only messages left out, source labels
 *    stripped, chains cut) for clients that send the history; what it changed
 *    is reported too (projection-events.ts).
 *
 * Integrity-bound formats (RequestRecogniser.integrityBound: Z.ai signs the
 * person's text, WIRE-FORMATS-2.md §0.2) are never rewritten: a changed copy
 * would be rejected by the server and break the chat. When steps 2–4 would
 * change the text, or warn, the person is asked instead (send as typed, edit,
 * or cancel); a block still blocks. So is any site that refused a request the
 * guard rewrote (`askInstead`, issue 20: content/rewrite-refusals.ts).
 *
 * Fail closed: any exception on a recognised request refuses the send
 * (`failed`); the caller rejects the page's fetch and the bridge shows a notice.
 *
 * No DOM, no extension APIs: this file is the testable core of outgoing-hook.ts.
 */
import { wrapUntrusted } from '../core/outgoing/envelope.ts';
import type { EnvelopeRenderer } from '../core/outgoing/envelope-renderer.ts';
import { freshFence } from '../core/outgoing/fence-token.ts';
import {
  historyFormatOfBody,
  historyShapeOf,
  messageText,
  readHistory,
} from '../core/outgoing/history-messages.ts';
import {
  type OutgoingFinding,
  guardOutgoingBody,
  outgoingKeywordFree,
} from '../core/outgoing/outgoing-dlp.ts';
import type { OutgoingPolicy } from '../core/outgoing/outgoing-policy.ts';
import { projectHistory } from '../core/outgoing/project-history.ts';
import type { CompiledLabelPack } from '../core/outgoing/source-label-pack.ts';
import type { CompiledPack } from '../core/rules/compile-pack.ts';
import type { RequestAdapter, RequestEdit } from '../core/wire/requests/request-text.ts';
import type { PageGuardEvent } from '../protocol/guard-reports.ts';
import { projectionEvents } from './projection-events.ts';

export interface OutgoingSetup {
  pack: CompiledPack;
  /**
   * Whether `pack` is warmed for the outgoing policy. A body with no keyword in it is
   * scanned with the rules without keywords (`outgoingKeywordFree`), warm or not; a
   * cold pack (its keyword automata not built yet: page-guard-config.ts) makes any
   * other body wait for the warm setup.
   */
  warm: boolean;
  policy: Partial<OutgoingPolicy>;
  renderer: EnvelopeRenderer;
  /** The source-label pack (compiled on first use: only history bodies need it). */
  labels(): CompiledLabelPack | undefined;
}

/** The bridge's answer for one request: pasted spans found in it, reference-only message indices. */
export interface OutgoingMarks {
  pasted: string[];
  referenceOnly: number[];
}

export interface OutgoingGuardDeps {
  setup(): OutgoingSetup;
  /** The warm setup, once there is one (rejects when there never will be: fail closed). */
  warmSetup(): Promise<OutgoingSetup>;
  /** Which spans of `newTexts` were pasted as untrusted, which `history` indices are reference-only. */
  lookup(newTexts: string[], history: string[]): Promise<OutgoingMarks>;
  /**
   * Asks the person about the warned findings; resolves with their answer. With
   * `bound` (an integrity-bound request the guard may not change) the findings are
   * everything it would have changed, and "edit" is an answer too.
   */
  confirm(findings: readonly OutgoingFinding[], bound?: boolean): Promise<SendDecision>;
  /** Reports what happened to this request (direction `out`). */
  report(format: string, events: PageGuardEvent[]): void;
  /**
   * Called before the scan: resolves at once while the current task is young, or
   * after a new task (task-pacer.ts). The setup that let this request go may have
   * been loaded in this very task (page-guard-config.ts, issue 4: no long tasks).
   */
  pace?(): Promise<void> | undefined;
  /**
   * Issue 20: this site refused a request the guard rewrote (content/rewrite-refusals.ts),
   * so its sends are treated as integrity-bound: asked about, never rewritten.
   */
  askInstead?: boolean;
}

/** The person's answer to the confirm dialog ("edit": not sent, back to the message). */
export type SendDecision = 'send' | 'edit' | 'cancel';

export type OutgoingOutcome =
  { send: true; body: string } | { send: false; reason: 'blocked' | 'cancelled' | 'failed' };

/**
 * Wraps every occurrence of the spans in `text` (longest span first, never
 * overlapping), one envelope per occurrence, all with the request's fence.
 */
export function wrapPastedSpans(
  text: string,
  spans: readonly string[],
  envelope: (span: string) => string,
): string {
  const taken: { start: number; end: number }[] = [];
  const ordered = [...new Set(spans)].filter((s) => s.length > 0);
  ordered.sort((a, b) => b.length - a.length);
  for (const span of ordered) {
    for (let at = text.indexOf(span); at >= 0; at = text.indexOf(span, at + span.length)) {
      const end = at + span.length;
      if (taken.some((t) => at < t.end && t.start < end)) continue;
      taken.push({ start: at, end });
    }
  }
  taken.sort((a, b) => a.start - b.start);
  let out = '';
  let last = 0;
  for (const t of taken) {
    out += text.slice(last, t.start) + envelope(text.slice(t.start, t.end));
    last = t.end;
  }
  return out + text.slice(last);
}

function packLabel(pack: CompiledPack): string {
  return `${pack.name}@${pack.version}`;
}

export function findingEvents(
  findings: readonly OutgoingFinding[],
  pack: CompiledPack,
): PageGuardEvent[] {
  return findings.map((f) => ({
    type: 'match',
    rule: f.rule,
    kind: f.kind,
    action: f.action,
    start: f.start,
    end: f.end,
    pack: packLabel(pack),
    matched: f.text,
  }));
}

function errorEvent(message: string, pack: string): PageGuardEvent {
  return { type: 'error', message, at: 0, pack };
}

/** Envelopes around the pasted spans in the person's new text. */
function applyEnvelopes(
  adapter: RequestAdapter,
  body: string,
  pasted: readonly string[],
  renderer: EnvelopeRenderer,
): string {
  if (pasted.length === 0) return body;
  const fence = freshFence();
  const envelope = (span: string) => {
    const wrapped = wrapUntrusted([span], { fence, renderer, source: 'paste' });
    // No budget is set, so an item is never skipped; if it were, fail closed.
    if (wrapped.text === '') throw new Error('envelope skipped a pasted span');
    return wrapped.text;
  };
  const edits: RequestEdit[] = [];
  for (const located of adapter.locate(body)) {
    if (located.part !== 'new') continue;
    const value = wrapPastedSpans(located.text, pasted, envelope);
    if (value !== located.text) edits.push({ path: located.path, value });
  }
  return edits.length === 0 ? body : adapter.rewrite(body, edits);
}

async function guardSteps(
  adapter: RequestAdapter,
  body: string,
  deps: OutgoingGuardDeps,
): Promise<OutgoingOutcome> {
  let setup = deps.setup();
  const newTexts = adapter
    .locate(body)
    .filter((t) => t.part === 'new')
    .map((t) => t.text);
  // Ollama's `/api/generate`-style `{prompt}` body (and the like) carries no message list.
  // big-AGI's list is `chatSequence` inside a tRPC wrapper, not `messages` (history-messages.ts).
  const format = historyFormatOfBody(adapter.name, body);
  const shape = format === undefined ? undefined : historyShapeOf(format);
  const history =
    shape === undefined
      ? []
      : readHistory(JSON.parse(body) as unknown, shape).map((m) => messageText(m));
  const marks = await deps.lookup(newTexts, history);

  const wrapped = applyEnvelopes(adapter, body, marks.pasted, setup.renderer);
  const scanned = { pack: setup.pack, policy: setup.policy };
  // A body with no keyword of a rule the policy keeps on (most prompts) is scanned with the
  // rules without keywords, warm pack or not: the findings are the same (outgoingKeywordFree).
  // Warm, the full scan still decoded the keyword rules that the prompt's last letters could
  // begin (the partial-keyword check at the end of its push), a page's first request paying
  // for them before its first token (issue 19 §4, docs/page-setup.md "Set-up, 3 December").
  const keywordFree = outgoingKeywordFree(adapter, wrapped, scanned);
  if (!setup.warm && !keywordFree) setup = await deps.warmSetup();
  await deps.pace?.();
  const dlp = guardOutgoingBody(adapter, wrapped, {
    pack: setup.pack,
    policy: setup.policy,
    alwaysOnOnly: keywordFree,
  });
  const bound = adapter.integrityBound === true || deps.askInstead === true;
  // Integrity-bound: nothing is redacted in the copy, so the popup and the log say "warn".
  const reported = bound ? dlp.findings.map(askedInstead) : dlp.findings;
  const events = findingEvents(reported, setup.pack);
  if (dlp.error !== undefined) {
    deps.report(adapter.name, [
      ...events,
      errorEvent('outgoing guard failed', packLabel(setup.pack)),
    ]);
    return { send: false, reason: 'failed' };
  }
  if (events.length > 0) deps.report(adapter.name, events);
  if (dlp.decision === 'block') return { send: false, reason: 'blocked' };
  const referenceOnly = new Set(
    marks.referenceOnly.flatMap((i) => (history[i] === undefined ? [] : [history[i]])),
  );
  const labels = setup.labels();
  const projection = {
    referenceOnly,
    // The bridge already matched the keyed digests; here a message's own text stands for it.
    digest: (text: string) => text,
    ...(labels === undefined ? {} : { labels }),
  };
  if (bound) {
    // Issue 20: projection would change it too (reference-only messages, source labels):
    // sent as typed only on the person's word, so a forged "this site refuses rewrites"
    // cannot turn projection off in silence.
    const projects = format !== undefined && projectHistory(body, format, projection).body !== body;
    const changes = dlp.body !== body || dlp.decision === 'warn' || projects;
    return askBound(body, changes, reported, deps);
  }
  if (dlp.decision === 'warn') {
    const answer = await deps.confirm(dlp.findings.filter((f) => f.action === 'warn'));
    if (answer !== 'send') return { send: false, reason: 'cancelled' };
  }

  if (format === undefined) return { send: true, body: dlp.body };
  const projected = projectHistory(dlp.body, format, projection);
  // What projection left out of the copy, for the popup and the audit log (issue 5 §3).
  const changes = projectionEvents(projected.changes, history, 'projection');
  if (changes.length > 0) deps.report(adapter.name, changes);
  return { send: true, body: projected.body };
}

/** A finding the policy would redact, asked about instead (integrity-bound requests). */
function askedInstead(finding: OutgoingFinding): OutgoingFinding {
  return finding.action === 'redact' ? { ...finding, action: 'warn' } : finding;
}

/**
 * An integrity-bound request: sent exactly as typed, or not at all. Asks only
 * when the guard would have changed the text (a redaction, a pasted-span
 * envelope, history projection) or warned; "send" sends the page's own body.
 */
async function askBound(
  body: string,
  wouldChange: boolean,
  findings: readonly OutgoingFinding[],
  deps: OutgoingGuardDeps,
): Promise<OutgoingOutcome> {
  if (!wouldChange) return { send: true, body };
  const answer = await deps.confirm(findings, true);
  return answer === 'send' ? { send: true, body } : { send: false, reason: 'cancelled' };
}

/** Guards one recognised request body; never throws (a failure refuses the send). */
export async function guardOutgoingRequestBody(
  adapter: RequestAdapter,
  body: string,
  deps: OutgoingGuardDeps,
): Promise<OutgoingOutcome> {
  try {
    return await guardSteps(adapter, body, deps);
  } catch {
    try {
      deps.report(adapter.name, [errorEvent('outgoing guard failed', 'outgoing')]);
    } catch {
      // Reporting is best effort; the refusal below is what keeps the request from leaving.
    }
    return { send: false, reason: 'failed' };
  }
}
