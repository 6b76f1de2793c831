/**
 * The argument parser shared by every `csg` command: long flags (`--name`,
 * `--name value`, `--name=value`), `-h`, positionals anywhere, `--` to end the
 * flags and `-` as a positional (standard input). Anything else is a UsageError.
 */
import { UsageError } from './usage-error.ts';

/** `true`: a switch; `false`: a flag that takes a value. */
export type FlagSpec = Record<string, boolean>;

export interface ParsedArguments {
  /** Switches that were given (value `true`) and valued flags (last one wins). */
  flags: Map<string, string | true>;
  positionals: string[];
  help: boolean;
}

export function parseArguments(
  command: string,
  argv: readonly string[],
  spec: FlagSpec,
  maxPositionals: number,
): ParsedArguments {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  let help = false;
  let flagsEnded = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (flagsEnded || arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    if (arg === '--') {
      flagsEnded = true;
      continue;
    }
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unknown option ${arg} for "${command}"`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const isSwitch = spec[name];
    if (isSwitch === undefined) {
      throw new UsageError(`unknown option --${name} for "${command}"`);
    }
    if (isSwitch) {
      if (eq !== -1) throw new UsageError(`option --${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      value = argv[i + 1];
      i++;
      // `--events --trace` is a forgotten value, not a file named "--trace".
      if (value?.startsWith('--')) value = undefined;
    }
    if (value === undefined || value === '') {
      throw new UsageError(`option --${name} needs a value`);
    }
    flags.set(name, value);
  }
  if (!help && positionals.length > maxPositionals) {
    const extra = positionals[maxPositionals] as string;
    throw new UsageError(`unexpected argument "${extra}" for "${command}"`);
  }
  return { flags, positionals, help };
}

/** The value of a valued flag, or undefined when it was not given. */
export function flagValue(parsed: ParsedArguments, name: string): string | undefined {
  const value = parsed.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}
