/**
 * `csg outgoing --format F [--reference-only FILE] [--labels PACK] [--events OUT]
 * [--rules PACK] [--policy KIND=ACTION,…] [FILE]` (issue 5 §1, §3): reads one request body (FILE or
 * standard input), applies DLP on send to the new message and attachment text
 * (default outgoing policy), then history projection, and prints the body that
 * would leave. `--events OUT` gets one JSON line per finding or change: rule,
 * action, offsets (code points of the string), message index; never text.
 *
 * Exit 0; 3 when the send is blocked (nothing is printed); 2 bad usage.
 * A `warn` finding has no one to ask here: the body is printed as it would
 * leave after the person confirmed, and the event says `warn`.
 */
import { writeFileSync } from 'node:fs';
import type { OutgoingFinding } from '../core/outgoing/outgoing-dlp.ts';
import type { ProjectionChange } from '../core/outgoing/project-history.ts';
import type { CompiledLabelPack } from '../core/outgoing/source-label-pack.ts';
import { loadBuiltinPack } from './builtin-pack.ts';
import { type FlagSpec, flagValue, parseArguments } from './cli-arguments.ts';
import { fileErrorMessage } from './file-error-message.ts';
import { outgoingHelp } from './help-text.ts';
import { decodedReads, openInputSource } from './input-source.ts';
import { OutputSink } from './output-sink.ts';
import { invalidPackMessage, loadPackFile, readPackJson } from './pack-file.ts';
import { digestMarks, readReferenceMarks } from './reference-only-file.ts';
import { UsageError } from './usage-error.ts';

const outgoingFlags: FlagSpec = {
  format: false,
  'reference-only': false,
  labels: false,
  events: false,
  rules: false,
  policy: false,
};

const ACTIONS = new Set(['redact', 'warn', 'block', 'off']);

/** `--policy secret=block,pii=off`: per-kind overrides of the default outgoing policy. */
function parsePolicy(value: string | undefined, kinds: readonly string[]): Record<string, string> {
  const policy: Record<string, string> = {};
  if (value === undefined) return policy;
  for (const entry of value.split(',')) {
    const [kind = '', action = ''] = entry.split('=');
    if (!kinds.includes(kind) || !ACTIONS.has(action)) {
      throw new UsageError(
        `--policy entries are KIND=ACTION with KIND one of ${kinds.join('|')} and ACTION one of redact|warn|block|off, not "${entry}"`,
      );
    }
    policy[kind] = action;
  }
  return policy;
}

export const OUTGOING_BLOCKED_EXIT = 3;

async function loadLabels(path: string | undefined): Promise<CompiledLabelPack> {
  const { checkLabelPack, getDefaultLabelPack } =
    await import('../core/outgoing/source-label-pack.ts');
  if (path === undefined) return getDefaultLabelPack();
  const checked = checkLabelPack(await readPackJson(path));
  if (checked.pack === undefined) throw new UsageError(invalidPackMessage(path, checked.problems));
  return checked.pack;
}

/** A body the adapters cannot read is bad input (exit 2), not an internal error. */
function invalidAsUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(`invalid request: ${error.message}`);
    throw error;
  }
}

/** A DLP finding as an events record: never its text. */
function findingRecord(f: OutgoingFinding): string {
  const { rule, action, start, end, kind, part, message } = f;
  return JSON.stringify({ rule, action, start, end, kind, part, message });
}

function changeRecord(c: ProjectionChange): string {
  if (c.action === 'drop' || c.action === 'empty') {
    return JSON.stringify({ rule: c.reason, action: c.action, message: c.message });
  }
  const rule = c.action === 'strip-label' ? c.rule : 'source-label-chain';
  const { action, start, end, message, part } = c;
  return JSON.stringify({ rule, action, start, end, message, part });
}

export async function outgoingCommand(argv: readonly string[]): Promise<number> {
  const args = parseArguments('outgoing', argv, outgoingFlags, 1);
  if (args.help) {
    process.stdout.write(outgoingHelp);
    return 0;
  }
  const { HISTORY_FORMATS, historyShapeOf, readHistory } =
    await import('../core/outgoing/history-messages.ts');
  const format = flagValue(args, 'format');
  const names = Object.keys(HISTORY_FORMATS).join('|');
  if (format === undefined) throw new UsageError(`--format is required (${names})`);
  const shape = historyShapeOf(format);
  if (shape === undefined)
    throw new UsageError(`--format must be one of ${names}, not "${format}"`);

  const { RULE_KINDS } = await import('../core/rules/rule.ts');
  const policy = parsePolicy(flagValue(args, 'policy'), RULE_KINDS);
  const rulesPath = flagValue(args, 'rules');
  const pack = rulesPath === undefined ? await loadBuiltinPack() : await loadPackFile(rulesPath);
  const labels = await loadLabels(flagValue(args, 'labels'));
  const marksPath = flagValue(args, 'reference-only');
  const marks = marksPath === undefined ? [] : await readReferenceMarks(marksPath);

  let body = '';
  for await (const text of decodedReads(await openInputSource(args.positionals[0]))) body += text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new UsageError(`invalid request: not JSON: ${(error as Error).message}`);
  }

  const { guardOutgoingBody } = await import('../core/outgoing/outgoing-dlp.ts');
  const requests = await import('../core/wire/requests/message-list-requests.ts');
  const adapter =
    shape === 'big-agi'
      ? (await import('../core/wire/requests/big-agi-request.ts')).bigAgiRequest
      : shape === 'anthropic'
        ? requests.anthropicRequest
        : format === 'ollama'
          ? requests.ollamaRequest
          : requests.openAiChatRequest;
  const { messages, guarded } = invalidAsUsage(() => ({
    messages: readHistory(parsed, shape),
    guarded: guardOutgoingBody(adapter, body, { pack, policy }),
  }));
  const records = guarded.findings.map(findingRecord);
  if (guarded.error !== undefined) {
    records.push(JSON.stringify({ rule: null, action: 'block', message: null, error: 'engine' }));
  }
  const eventsPath = flagValue(args, 'events');
  const writeEvents = () => {
    if (eventsPath === undefined) return;
    try {
      writeFileSync(eventsPath, records.map((r) => r + '\n').join(''));
    } catch (error) {
      throw new UsageError(`cannot write events to ${eventsPath}: ${fileErrorMessage(error)}`);
    }
  };
  if (guarded.decision === 'block') {
    writeEvents();
    return OUTGOING_BLOCKED_EXIT;
  }

  const { projectHistory } = await import('../core/outgoing/project-history.ts');
  const { digest, digests } = digestMarks(marks, messages);
  const projected = projectHistory(guarded.body, format, {
    labels,
    referenceOnly: digests,
    digest,
  });
  records.push(...projected.changes.map(changeRecord));
  writeEvents();
  await OutputSink.stdout().write(projected.body);
  return 0;
}
