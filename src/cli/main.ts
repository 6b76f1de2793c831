/**
 * The `csg` command (DESIGN.md §5): dispatches to one file per command and
 * turns every failure into one line on stderr, never a stack trace.
 *
 * Exit status: 0 done; 3 a stream was blocked (a guard error event also
 * blocks); 2 bad usage or invalid input (UsageError); 1 an unexpected internal
 * error. A reader that goes away (EPIPE) ends the command quietly.
 *
 * Commands are imported when they run, so `--help` and `--version` never
 * compile a rule pack.
 */
import {
  envelopeHelp,
  mainHelp,
  outgoingHelp,
  replayHelp,
  rulesHelp,
  scanHelp,
  versionText,
} from './help-text.ts';
import { UsageError } from './usage-error.ts';

/** Commands that later issues build; until then they say so instead of pretending. */
const laterCommands: Record<string, number> = {};

const helpByCommand: Record<string, string> = {
  scan: scanHelp,
  rules: rulesHelp,
  replay: replayHelp,
  outgoing: outgoingHelp,
  envelope: envelopeHelp,
};

async function run(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('missing command (see "csg --help")');
    case '-h':
    case '--help':
      process.stdout.write(mainHelp);
      return 0;
    case 'help': {
      const topic = rest[0];
      if (topic === undefined) {
        process.stdout.write(mainHelp);
        return 0;
      }
      const text = helpByCommand[topic];
      if (text === undefined) throw new UsageError(`no help for unknown command "${topic}"`);
      process.stdout.write(text);
      return 0;
    }
    case '--version':
      process.stdout.write(versionText);
      return 0;
    case 'scan':
      return (await import('./scan-command.ts')).scanCommand(rest);
    case 'rules':
      return (await import('./rules-command.ts')).rulesCommand(rest);
    case 'replay':
      return (await import('./replay-command.ts')).replayCommand(rest);
    case 'outgoing':
      return (await import('./outgoing-command.ts')).outgoingCommand(rest);
    case 'envelope':
      return (await import('./envelope-command.ts')).envelopeCommand(rest);
    default: {
      const issue = laterCommands[command];
      if (issue !== undefined) {
        throw new UsageError(`"${command}" is not implemented yet (issue ${issue})`);
      }
      throw new UsageError(
        command.startsWith('-')
          ? `unknown option ${command} (see "csg --help")`
          : `unknown command "${command}" (see "csg --help")`,
      );
    }
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function isBrokenPipe(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'EPIPE';
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (isBrokenPipe(error)) {
    process.exitCode = 0;
  } else if (error instanceof UsageError) {
    process.stderr.write(`csg: ${oneLine(error.message)}\n`);
    process.exitCode = 2;
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`csg: internal error: ${oneLine(message)}\n`);
    process.exitCode = 1;
  }
}
