/**
 * DLP on send (issue 5 §1): the person's new text and the attachment text a
 * provider sends run through the same rule packs as answers, with the
 * outgoing policy per kind. Only the request copy changes: the body is
 * rewritten string by string through the request adapter, every other byte
 * stays as the page wrote it, and the page's input box and stored message
 * are never touched (DESIGN.md §3.8).
 *
 * Findings carry the matched text so the extension can digest it (keyed HMAC)
 * for the audit log and show the person what was found; it must never be
 * logged or stored as such (DESIGN.md §3.7).
 */
import { keywordOccursIn } from '../guard/keyword-presence.ts';
import { scanText } from '../guard/scan-text.ts';
import type { GuardOptions } from '../guard/stream-guard.ts';
import type { CompiledPack } from '../rules/compile-pack.ts';
import type { RuleAction, RuleKind } from '../rules/rule.ts';
import type { JsonPath } from '../wire/json-string-span.ts';
import { detectRequestAdapter } from '../wire/requests/request-registry.ts';
import type {
  OutgoingRequest,
  RequestAdapter,
  RequestEdit,
  RequestPart,
  RequestText,
} from '../wire/requests/request-text.ts';
import { sliceCodePoints } from './code-point-offsets.ts';
import {
  type OutgoingPolicy,
  type OutgoingPolicyAction,
  guardActionFor,
  resolvePolicy,
} from './outgoing-policy.ts';

export interface OutgoingFinding {
  rule: string;
  kind: RuleKind;
  /** What the policy does with it (`error` when the engine failed: fail closed, blocks). */
  action: Exclude<OutgoingPolicyAction, 'off'>;
  part: RequestPart;
  /** Message index in the body (0 for single-prompt bodies). */
  message: number;
  /** JSON path of the string the finding is in. */
  path: JsonPath;
  /** Offsets in code points of that string. */
  start: number;
  end: number;
  /** The matched text, for digesting only: never log or store it. */
  text: string;
}

/**
 * - `send`: nothing found; `body` is the unchanged body.
 * - `redact`: `body` is the redacted copy to send.
 * - `warn`: hold the send and ask the person; if they confirm, send `body`
 *   (redactions of other kinds applied, the warned text as typed).
 * - `block`: the request must not leave; `body` is the unchanged body.
 */
export type OutgoingDecision = 'send' | 'redact' | 'warn' | 'block';

export interface OutgoingGuardResult {
  decision: OutgoingDecision;
  body: string;
  findings: OutgoingFinding[];
  /** The request adapter that read the body; null when no adapter recognises the request. */
  format: string | null;
  /** Set when the engine failed on some text (then the decision is `block`). */
  error?: string;
}

export interface OutgoingGuardOptions {
  pack: CompiledPack;
  policy?: Partial<OutgoingPolicy>;
  /** Parts checked; the person's new text and attachment text by default (issue 5 §1). */
  parts?: readonly RequestPart[];
  /**
   * Scan with the rules without keywords only (GuardOptions.alwaysOnOnly): for a
   * body `outgoingKeywordFree` accepts, where the findings are the same.
   */
  alwaysOnOnly?: boolean;
}

const DEFAULT_PARTS: readonly RequestPart[] = ['new', 'attachment'];

/**
 * The most text (code units, all scanned strings together) `outgoingKeywordFree`
 * looks through: its keyword search reads the text once per keyword, which only
 * pays while the pack's keyword automata are not built yet.
 */
export const KEYWORD_FREE_MAX_UNITS = 4096;

/** The strings of `body` a send scans: the checked parts, empty ones skipped. */
function scannedTexts(
  adapter: RequestAdapter,
  body: string,
  parts: readonly RequestPart[] | undefined,
): RequestText[] {
  const checked = new Set(parts ?? DEFAULT_PARTS);
  return adapter.locate(body).filter((t) => checked.has(t.part) && t.text.length > 0);
}

/** DLP for a request the page is about to send; unrecognised requests pass (format null). */
export function guardOutgoingRequest(
  request: OutgoingRequest,
  body: string,
  options: OutgoingGuardOptions,
): OutgoingGuardResult {
  const adapter = detectRequestAdapter(request);
  if (adapter === undefined) return { decision: 'send', body, findings: [], format: null };
  return guardOutgoingBody(adapter, body, options);
}

/**
 * The guard options a request's text is scanned with on send: the person's
 * outgoing policy, as set (also what the extension warms the pack for, so the
 * first send does not build the engine's tables in one task: warm-up.ts).
 */
export function outgoingScanOptions(policy?: Partial<OutgoingPolicy>): GuardOptions {
  const guardPolicy = Object.fromEntries(
    Object.entries(resolvePolicy(policy)).map(([kind, action]) => [kind, guardActionFor(action)]),
  ) as Record<RuleKind, RuleAction>;
  return { policy: guardPolicy, policyMode: 'set' };
}

/** DLP for a body of a known request format. Throws a SyntaxError on a body the adapter cannot read. */
export function guardOutgoingBody(
  adapter: RequestAdapter,
  body: string,
  options: OutgoingGuardOptions,
): OutgoingGuardResult {
  const scanOptions: GuardOptions = {
    ...outgoingScanOptions(options.policy),
    alwaysOnOnly: options.alwaysOnOnly === true,
  };
  const findings: OutgoingFinding[] = [];
  const edits: RequestEdit[] = [];
  let error: string | undefined;
  for (const located of scannedTexts(adapter, body, options.parts)) {
    // On send the person's policy applies as set (kind-policy.ts): e.g. a card number
    // is warned about by default, not redacted as the pack does in answers.
    const outcome = scanText(options.pack, located.text, scanOptions);
    for (const event of outcome.events) {
      if (event.type === 'error') {
        error ??= event.rule === undefined ? event.message : `${event.rule}: ${event.message}`;
        continue;
      }
      findings.push({
        rule: event.rule,
        kind: event.kind,
        action: event.action === 'flag' ? 'warn' : event.action,
        part: located.part,
        message: located.message,
        path: located.path,
        start: event.start,
        end: event.end,
        text: sliceCodePoints(located.text, event.start, event.end),
      });
    }
    if (!outcome.blocked && outcome.output !== located.text) {
      edits.push({ path: located.path, value: outcome.output });
    }
  }
  const format = adapter.name;
  if (error !== undefined) return { decision: 'block', body, findings, format, error };
  if (findings.some((f) => f.action === 'block')) {
    return { decision: 'block', body, findings, format };
  }
  const rewritten = edits.length === 0 ? body : adapter.rewrite(body, edits);
  const decision: OutgoingDecision = findings.some((f) => f.action === 'warn')
    ? 'warn'
    : edits.length > 0
      ? 'redact'
      : 'send';
  return { decision, body: rewritten, findings, format };
}

/**
 * True when `guardOutgoingBody` may scan `body` with `alwaysOnOnly` and find the
 * same: the strings it scans are short (KEYWORD_FREE_MAX_UNITS) and hold no
 * keyword of a rule the policy keeps on (keyword-presence.ts). Throws, as
 * `guardOutgoingBody` does, on a body the adapter cannot read.
 */
export function outgoingKeywordFree(
  adapter: RequestAdapter,
  body: string,
  options: OutgoingGuardOptions,
): boolean {
  const texts = scannedTexts(adapter, body, options.parts).map((t) => t.text);
  if (texts.reduce((sum, text) => sum + text.length, 0) > KEYWORD_FREE_MAX_UNITS) return false;
  return !keywordOccursIn(options.pack, outgoingScanOptions(options.policy), texts);
}
