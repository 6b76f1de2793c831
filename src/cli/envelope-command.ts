/**
 * `csg envelope [FILE] [--source NAME] [--renderer json|quote] [--budget BYTES]`
 * and `csg envelope --decode [FILE]` (issue 5 §2, DESIGN.md §5): wraps the
 * input (stdin, or FILE) as one untrusted item in an envelope with a fresh
 * fence, or reads a json envelope back and writes the original text exactly.
 *
 * The input is read whole: an envelope is one JSON line, so nothing can be
 * written before the input has ended. When --budget leaves too little room,
 * nothing is written and the command fails (exit 2); the extension must not
 * send material unwrapped either (fail closed). A truncated item is written
 * with a note on stderr.
 */
import { decodeEnvelope } from '../core/outgoing/envelope-decode.ts';
import { isEnvelopeRenderer } from '../core/outgoing/envelope-renderer.ts';
import { wrapUntrusted } from '../core/outgoing/envelope.ts';
import { type FlagSpec, type ParsedArguments, flagValue, parseArguments } from './cli-arguments.ts';
import { envelopeHelp } from './help-text.ts';
import { decodedReads, openInputSource } from './input-source.ts';
import { OutputSink } from './output-sink.ts';
import { UsageError } from './usage-error.ts';

const envelopeFlags: FlagSpec = {
  source: false,
  renderer: false,
  budget: false,
  decode: true,
};

const DEFAULT_SOURCE = 'standard input';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

async function readAll(file: string | undefined): Promise<string> {
  let text = '';
  for await (const read of decodedReads(await openInputSource(file))) text += read;
  return text;
}

function parseBudget(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw new UsageError(`--budget must be a whole number of bytes, not "${value}"`);
  }
  return Number(value);
}

async function wrap(args: ParsedArguments): Promise<number> {
  const renderer = flagValue(args, 'renderer') ?? 'json';
  if (!isEnvelopeRenderer(renderer)) {
    throw new UsageError(`--renderer must be "json" or "quote", not "${renderer}"`);
  }
  const budget = parseBudget(flagValue(args, 'budget'));
  const content = await readAll(args.positionals[0]);
  const result = wrapUntrusted([content], {
    renderer,
    source: flagValue(args, 'source') ?? DEFAULT_SOURCE,
    // The budget covers the whole output, the final line break included.
    budget: budget === undefined ? undefined : Math.max(0, budget - 1),
  });
  const [outcome] = result.items;
  if (outcome === undefined || outcome.status === 'skipped') {
    throw new UsageError(
      `the input (${utf8Bytes(content)} bytes) does not fit in --budget ${budget} bytes ` +
        '(a truncated item keeps at least 64 bytes; nothing was written)',
    );
  }
  if (outcome.status === 'truncated') {
    process.stderr.write(
      `csg: note: the input was truncated to ${outcome.deliveredBytes} of ${outcome.bytes} bytes ` +
        `to fit --budget ${budget}\n`,
    );
  }
  await OutputSink.stdout().write(result.text + '\n');
  return 0;
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

async function decode(args: ParsedArguments): Promise<number> {
  for (const flag of ['source', 'budget'] as const) {
    if (args.flags.has(flag)) throw new UsageError(`--decode takes no --${flag}`);
  }
  const renderer = flagValue(args, 'renderer');
  if (renderer !== undefined && renderer !== 'json') {
    throw new UsageError('--decode reads json envelopes only (the quote renderer is lossy)');
  }
  const result = decodeEnvelope(await readAll(args.positionals[0]));
  if (!result.ok) throw new UsageError(`invalid envelope: ${result.reason}`);
  const { items } = result.envelope;
  const [item] = items;
  if (item === undefined || items.length !== 1) {
    throw new UsageError(`the envelope holds ${items.length} items; --decode writes exactly one`);
  }
  // UTF-8 output cannot carry a lone surrogate: refuse rather than write U+FFFD.
  if (LONE_SURROGATE.test(item.content)) {
    throw new UsageError('the content holds a lone surrogate, which UTF-8 output cannot carry');
  }
  if (item.truncated) {
    process.stderr.write(
      'csg: note: the envelope holds a truncated item, not the whole original\n',
    );
  }
  await OutputSink.stdout().write(item.content);
  return 0;
}

export async function envelopeCommand(argv: readonly string[]): Promise<number> {
  const args = parseArguments('envelope', argv, envelopeFlags, 1);
  if (args.help) {
    process.stdout.write(envelopeHelp);
    return 0;
  }
  return args.flags.has('decode') ? decode(args) : wrap(args);
}
