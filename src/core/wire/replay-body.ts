/**
 * Runs a captured response body through an adapter and the guard, as the page
 * hook would: for `csg replay`, fixtures and tests. `chunks` are the network
 * chunks as they arrived (whole body by default).
 */
import type { GuardEvent } from '../guard/guard-event.ts';
import type { GuardOptions } from '../guard/stream-guard.ts';
import type { CompiledPack } from '../rules/compile-pack.ts';
import { StreamRewriter, type WireIssue } from './stream-rewriter.ts';
import type { WireAdapter } from './wire-event.ts';

export interface ReplayOutcome {
  output: string;
  blocked: boolean;
  events: { channel: string; event: GuardEvent }[];
  issues: WireIssue[];
}

export function replayBody(
  adapter: WireAdapter,
  pack: CompiledPack,
  chunks: Iterable<string>,
  guard: GuardOptions = {},
): ReplayOutcome {
  const events: ReplayOutcome['events'] = [];
  const issues: WireIssue[] = [];
  const rewriter = new StreamRewriter(adapter, pack, {
    guard,
    onGuardEvents: (channel, list) => events.push(...list.map((event) => ({ channel, event }))),
    onIssue: (issue) => issues.push(issue),
  });
  let output = '';
  for (const chunk of chunks) output += rewriter.push(chunk);
  output += rewriter.end();
  return { output, blocked: rewriter.isBlocked, events, issues };
}
