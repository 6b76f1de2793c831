/**
 * The built `csg` (scripts/build-cli.js) and its launcher (bin/csg.js).
 *
 * The bundle is built afresh into a temporary directory, far from any node_modules, and run
 * there: it must need nothing but Node, and with its built-in pack (serialised at build
 * time, loaded with loadCompiledPack) it must give exactly what the sources give (the pack
 * compiled by getCorePack) on every rule's examples. The launcher is copied into small fake
 * package trees to check which of the two it runs.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPackJson } from '../../../src/core/rules/builtin-packs.ts';
import { TempFiles } from './temp-files.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const temp = new TempFiles();
afterAll(() => temp.remove());

const T = 60_000;
/** The launcher, told to run the TypeScript sources. */
const sourceBin = join(repo, 'bin', 'csg.js');

interface Run {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

function node(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Run {
  const result = spawnSync(process.execPath, args, {
    input: options.input ?? '',
    env: { ...process.env, ...options.env },
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

describe('the csg bundle', () => {
  const outDir = temp.path('built');
  const bundle = join(outDir, 'csg.mjs');

  beforeAll(() => {
    const build = node([join(repo, 'scripts', 'build-cli.js'), '--outdir', outDir]);
    expect(build.stderr).toMatch(
      /^build-cli: .*csg\.mjs \(\d+ kB; \d+ chunks, \d+ kB\) and builtin-pack\.json/,
    );
    expect(build.status).toBe(0);
  }, T);

  it('writes the bundle, the serialised pack and the list of its inputs', () => {
    for (const name of [
      'csg.mjs',
      'builtin-pack.json',
      'builtin-warm.json',
      'builtin-tables.bin',
      'inputs.json',
    ]) {
      expect(existsSync(join(outDir, name))).toBe(true);
    }
    const record = JSON.parse(readFileSync(join(outDir, 'inputs.json'), 'utf8')) as {
      builtAt: number;
      inputs: string[];
    };
    expect(record.inputs).toContain('src/cli/main.ts');
    expect(record.inputs).toContain('src/core/rules/packs/secrets.json');
    expect(record.inputs).toContain('package.json');
    // Every input is a file of the checkout: one that is not (a module the build made up)
    // would make bin/csg.js take the bundle for stale on every run.
    for (const input of record.inputs) expect(existsSync(join(repo, input)), input).toBe(true);
  });

  it('imports nothing but Node built-in modules and its own chunks', () => {
    const chunks = readdirSync(join(outDir, 'chunks')).map((name) => join('chunks', name));
    expect(chunks.length).toBeGreaterThan(0);
    const specifiers: string[] = [];
    for (const file of ['csg.mjs', ...chunks]) {
      const code = readFileSync(join(outDir, file), 'utf8');
      // Static imports (`import{…}from"…"`, `import"…"`) and dynamic `import("…")`.
      const statics = [...code.matchAll(/(?:^|;)import\s*(?:[\w$*{},\s]+from\s*)?"([^"]+)"/gm)];
      const dynamics = [...code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)];
      for (const m of [...statics, ...dynamics]) {
        const specifier = m[1] as string;
        specifiers.push(specifier);
        // A relative import must be another file of this build, not a package's.
        if (!specifier.startsWith('node:')) {
          expect(specifier).toMatch(/^\.\.?\/[\w-]+(?:\/[\w-]+)?\.mjs$/);
          expect(existsSync(join(outDir, dirname(file), specifier))).toBe(true);
        }
      }
    }
    expect(specifiers.some((s) => s.startsWith('node:'))).toBe(true);
  });

  it('scans with the built-in pack without its sources (the pack chunk removed)', () => {
    // Split by command (scripts/build-cli.js): the pack sources are a chunk of their own
    // that `scan` with the bundled pack and warm tables never imports.
    const copy = temp.path('without-pack-sources');
    cpSync(outDir, copy, { recursive: true });
    const packChunks = readdirSync(join(copy, 'chunks')).filter((name) =>
      name.startsWith('builtin-packs-'),
    );
    expect(packChunks).toHaveLength(1);
    rmSync(join(copy, 'chunks', packChunks[0] as string));
    const input = 'hi\n' + (builtinPackJson().rules[0]?.examples.match[0] ?? '') + '\n';
    const intact = node([bundle, 'scan'], { input });
    const run = node([join(copy, 'csg.mjs'), 'scan'], { input });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(intact.status);
    expect(run.stdout.toString()).toBe(intact.stdout.toString());
    // `rules list` compiles nothing either; `rules check` needs the sources and says so.
    expect(node([join(copy, 'csg.mjs'), 'rules', 'list']).status).toBe(0);
  });

  it("with its built tables edited: the head sends it to the JSON files, the rules' data refuses", () => {
    // docs/cli-startup.md "Trust": the build recorded the digest of the tables' head.
    const input = 'hi\n' + (builtinPackJson().rules[0]?.examples.match[0] ?? '') + '\n';
    const intact = node([bundle, 'scan'], { input });
    expect(intact.stdout.toString()).toContain('[redacted:');
    const tables = readFileSync(join(outDir, 'builtin-tables.bin'));
    const head = tables.readUInt32LE(12);
    const edited = (name: string, at: number): string => {
      const copy = temp.path(name);
      cpSync(outDir, copy, { recursive: true });
      const bytes = Buffer.from(tables);
      bytes[at] = (bytes[at] as number) ^ 1;
      writeFileSync(join(copy, 'builtin-tables.bin'), bytes);
      return join(copy, 'csg.mjs');
    };
    // A byte of the head (the header's JSON): the JSON files, fully checked, same output.
    const fromJson = node([edited('tables-head-edited', 40), 'scan'], { input });
    expect(fromJson.stderr).toBe('');
    expect(fromJson.status).toBe(intact.status);
    expect(fromJson.stdout.toString()).toBe(intact.stdout.toString());
    // A byte of the rules' data: the first rule the scan starts is refused, the scan blocked.
    const refused = node([edited('tables-rules-edited', head + 10), 'scan'], { input });
    expect(refused.status).toBe(3);
    expect(refused.stdout.toString()).not.toContain(
      builtinPackJson().rules[0]?.examples.match[0] ?? 'never',
    );
  });

  it(
    'scans every rule example exactly as the sources do, events included',
    () => {
      // Both through the command (the same reads reach the guard), so only the build differs.
      const examples = builtinPackJson().rules.flatMap((rule) => [
        ...rule.examples.match,
        ...rule.examples.noMatch,
      ]);
      const input = examples.join('\n\n') + '\n';
      const bundleEvents = temp.path('bundle-events.jsonl');
      const sourceEvents = temp.path('source-events.jsonl');
      const fromBundle = node([bundle, 'scan', '--events', bundleEvents], { input });
      const fromSource = node([sourceBin, 'scan', '--events', sourceEvents], {
        input,
        env: { CSG_FROM_SOURCE: '1' },
      });
      expect(fromBundle.stderr).toBe('');
      expect(fromBundle.status).toBe(0);
      expect(fromSource.status).toBe(0);
      expect(fromBundle.stdout.toString()).toContain('[redacted:');
      expect(fromBundle.stdout.equals(fromSource.stdout)).toBe(true);
      const events = readFileSync(bundleEvents, 'utf8');
      expect(events.split('\n').length).toBeGreaterThan(100);
      expect(events).toBe(readFileSync(sourceEvents, 'utf8'));
    },
    T,
  );

  it(
    'lists the same rules as the sources, and its version is the package version',
    () => {
      const fromBundle = node([bundle, 'rules', 'list', '--json']);
      const fromSource = node([sourceBin, 'rules', 'list', '--json'], {
        env: { CSG_FROM_SOURCE: '1' },
      });
      expect(fromBundle.status).toBe(0);
      expect(fromBundle.stdout.toString()).toBe(fromSource.stdout.toString());
      const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(node([bundle, '--version']).stdout.toString()).toBe(`csg ${version}\n`);
    },
    T,
  );

  it('keeps the one-line usage errors', () => {
    const run = node([bundle, 'scan', '--direction', 'sideways']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('csg: --direction must be "in" or "out", not "sideways"\n');
  });
});

describe('bin/csg.js, the launcher', () => {
  /**
   * A package tree with the real launcher, a stand-in bundle and (optionally) a stand-in
   * source main, each printing which one ran. node_modules links to the repository's, for tsx.
   */
  function packageTree(name: string, options: { sources: boolean; bundle: boolean }): string {
    const dir = temp.path(name);
    mkdirSync(join(dir, 'bin'), { recursive: true });
    copyFileSync(join(repo, 'bin', 'csg.js'), join(dir, 'bin', 'csg.js'));
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    if (options.bundle) {
      writeFileSync(join(dir, 'dist', 'cli', 'csg.mjs'), "process.stdout.write('bundle\\n');\n");
    }
    if (options.sources) {
      mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
      writeFileSync(join(dir, 'src', 'cli', 'main.ts'), "process.stdout.write('source\\n');\n");
      symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
      // Built after the source was last written.
      const builtAt = Date.now() + 1000;
      writeFileSync(
        join(dir, 'dist', 'cli', 'inputs.json'),
        JSON.stringify({ builtAt, inputs: ['src/cli/main.ts'] }),
      );
    }
    return join(dir, 'bin', 'csg.js');
  }

  it('an installed package (no sources) runs the bundle', () => {
    const bin = packageTree('installed', { sources: false, bundle: true });
    expect(node([bin]).stdout.toString()).toBe('bundle\n');
    // Even with CSG_FROM_SOURCE: there is nothing else to run.
    expect(node([bin], { env: { CSG_FROM_SOURCE: '1' } }).stdout.toString()).toBe('bundle\n');
  });

  it('an installed package without its bundle says so in one line', () => {
    const bin = packageTree('broken', { sources: false, bundle: false });
    const run = node([bin]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^csg: .*dist\/cli\/csg\.mjs is missing: reinstall the package\n$/);
  });

  it(
    'a checkout runs the bundle while it is current, else the sources through tsx',
    () => {
      const bin = packageTree('checkout', { sources: true, bundle: true });
      expect(node([bin]).stdout.toString()).toBe('bundle\n');
      expect(node([bin], { env: { CSG_FROM_SOURCE: '1' } }).stdout.toString()).toBe('source\n');
      // A source file changed after the build started: the bundle is out of date.
      const later = new Date(Date.now() + 5000);
      utimesSync(join(bin, '..', '..', 'src', 'cli', 'main.ts'), later, later);
      expect(node([bin]).stdout.toString()).toBe('source\n');
    },
    T,
  );

  it(
    'a checkout without a bundle (npm ci --ignore-scripts) runs the sources',
    () => {
      const bin = packageTree('unbuilt', { sources: true, bundle: false });
      expect(node([bin]).stdout.toString()).toBe('source\n');
    },
    T,
  );
});
