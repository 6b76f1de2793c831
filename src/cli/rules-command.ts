/**
 * `csg rules list [PACK] [--rules PACK] [--json]` and `csg rules check [PACK]`
 * (DESIGN.md §5). Without a pack, both use the built-in packs, merged as the
 * engine runs them.
 */
import { checkPack } from '../core/rules/check-pack.ts';
import type { CompiledPack, CompiledRule } from '../core/rules/compile-pack.ts';
import { formatProblem } from '../core/rules/validate-pack.ts';
import { loadBuiltinPack } from './builtin-pack.ts';
import { type FlagSpec, flagValue, parseArguments } from './cli-arguments.ts';
import { rulesHelp } from './help-text.ts';
import { invalidPackMessage, loadPackFile, readPackJson } from './pack-file.ts';
import { UsageError } from './usage-error.ts';

const listFlags: FlagSpec = { rules: false, json: true };
const checkFlags: FlagSpec = {};

/** Tabs and line breaks inside a field would break the table: escape them. */
function tableField(text: string): string {
  return text.replace(
    /[\t\r\n\\]/g,
    (c) => ({ '\t': '\\t', '\r': '\\r', '\n': '\\n' })[c] ?? '\\\\',
  );
}

/** A rule whose automaton is unbounded: it may be held up to its declared maxLength. */
function heldToDeclaredMaxLength(rule: CompiledRule): boolean {
  return rule.structuralMaxLength === Infinity;
}

function ruleRecord(rule: CompiledRule): Record<string, unknown> {
  return {
    id: rule.id,
    kind: rule.kind,
    action: rule.action,
    maxLength: rule.maxLength,
    keywords: rule.keywords === null ? null : [...rule.keywords],
    scope: rule.spec.scope ?? 'both',
    validator: rule.spec.validator?.name ?? null,
    heldToDeclaredMaxLength: heldToDeclaredMaxLength(rule),
    description: rule.spec.description,
  };
}

function listTable(pack: CompiledPack): string {
  const lines = ['id\tkind\taction\tmax_length\tkeywords'];
  for (const rule of pack.rules) {
    const keywords = rule.keywords === null ? '-' : rule.keywords.map(tableField).join(',');
    lines.push([tableField(rule.id), rule.kind, rule.action, rule.maxLength, keywords].join('\t'));
  }
  return lines.join('\n') + '\n';
}

async function listCommand(argv: readonly string[]): Promise<number> {
  const args = parseArguments('rules list', argv, listFlags, 1);
  if (args.help) {
    process.stdout.write(rulesHelp);
    return 0;
  }
  const positional = args.positionals[0];
  const option = flagValue(args, 'rules');
  if (positional !== undefined && option !== undefined) {
    throw new UsageError('give the pack once: as PACK or as --rules PACK');
  }
  const path = positional ?? option;
  const pack = path === undefined ? await loadBuiltinPack() : await loadPackFile(path);
  process.stdout.write(
    args.flags.has('json')
      ? JSON.stringify(pack.rules.map(ruleRecord), null, 2) + '\n'
      : listTable(pack),
  );
  return 0;
}

async function checkCommand(argv: readonly string[]): Promise<number> {
  const args = parseArguments('rules check', argv, checkFlags, 1);
  if (args.help) {
    process.stdout.write(rulesHelp);
    return 0;
  }
  const path = args.positionals[0];
  const json =
    path === undefined
      ? (await import('../core/rules/builtin-packs.ts')).builtinPackJson()
      : await readPackJson(path);
  const label = path ?? 'built-in packs';
  const { problems, warnings, pack } = checkPack(json);
  const warningLines = warnings.map((w) => `warning: ${formatProblem(w)}\n`).join('');
  if (pack === undefined || problems.length > 0) {
    process.stdout.write(problems.map((p) => formatProblem(p) + '\n').join('') + warningLines);
    process.stderr.write(`csg: ${invalidPackMessage(label, problems)}\n`);
    return 2;
  }
  process.stdout.write(warningLines);
  const lines = [`ok: ${pack.rules.length} rules`];
  const held = pack.rules.filter(heldToDeclaredMaxLength);
  if (held.length === 0) {
    lines.push('held up to declared maxLength: none (every pattern bounds its own length)');
  } else {
    lines.push('held up to declared maxLength (the pattern itself is unbounded):');
    for (const rule of held) lines.push(`  ${rule.id}\tmaxLength ${rule.maxLength}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

export async function rulesCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list':
      return listCommand(rest);
    case 'check':
      return checkCommand(rest);
    case undefined:
      throw new UsageError('"rules" needs a subcommand: list or check (see "csg help rules")');
    case '-h':
    case '--help':
      process.stdout.write(rulesHelp);
      return 0;
    default:
      throw new UsageError(`unknown subcommand "rules ${sub}" (expected list or check)`);
  }
}
