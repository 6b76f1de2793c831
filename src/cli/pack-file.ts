/**
 * Rule packs given on the command line (`--rules PACK`, `csg rules check PACK`):
 * read as JSON and compiled, with one-line messages for every way that fails.
 */
import { readFileSync } from 'node:fs';
import { type CompiledPack, PackError, compilePack } from '../core/rules/compile-pack.ts';
import { type PackProblem, formatProblem } from '../core/rules/validate-pack.ts';
import { fileErrorMessage } from './file-error-message.ts';
import { UsageError } from './usage-error.ts';

/** Reads and parses a pack file; UsageError when it cannot be read or is not JSON. */
export async function readPackJson(path: string): Promise<unknown> {
  let text: string;
  try {
    // Not node:fs/promises: importing it costs a short run several ms (issue 19 §2).
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read pack ${path}: ${fileErrorMessage(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`invalid pack ${path}: not JSON: ${(error as Error).message}`);
  }
}

/** The one-line message for a pack with problems: the first one, and how many more. */
export function invalidPackMessage(path: string, problems: readonly PackProblem[]): string {
  const first = problems[0];
  const head = first === undefined ? 'invalid' : formatProblem(first);
  const more = problems.length - 1;
  const tail = more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : '';
  return `invalid pack ${path}: ${head}${tail}`;
}

/** Reads and compiles a pack file (structure, patterns, bounds, keywords). */
export async function loadPackFile(path: string): Promise<CompiledPack> {
  const json = await readPackJson(path);
  try {
    return compilePack(json);
  } catch (error) {
    if (error instanceof PackError) throw new UsageError(invalidPackMessage(path, error.problems));
    throw error;
  }
}
