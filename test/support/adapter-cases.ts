/**
 * The fixture cases every registered wire adapter is held to (issue 20 §0):
 * each fixture folder under test/fixtures/wire has a `cases.json` naming, per
 * fixture file, the adapter that reads it, whether it holds text the core pack
 * changes, and how a blocked answer of that provider ends. A new adapter is its
 * own file plus a folder of fixtures with this manifest; the harness
 * (test/unit/wire/adapter-harness.test.ts) then runs it through every check.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getCorePack } from '../../src/core/rules/builtin-packs.ts';
import { type CompiledPack, compilePack } from '../../src/core/rules/compile-pack.ts';
import type { WireProbe } from '../../src/core/wire/wire-event.ts';

/** How the provider ends a refused answer: the blocked body's last bytes, or a whole JSON document. */
export type BlockEnding = { endsWith: string } | { json: true };

export interface AdapterCase {
  folder: string;
  file: string;
  /** The adapter id (wire-recognisers.ts) that reads this body. */
  adapter: string;
  /** The document section the fixture stands on. */
  source: string;
  /** True when the core pack changes its text; false for a body that must pass byte for byte. */
  guarded: boolean;
  block?: BlockEnding;
  /** When given, detection from this probe must pick `adapter` (head: the body's start). */
  probe?: Omit<WireProbe, 'head'>;
  /** The file decoded as UTF-8. */
  body: string;
  /** The file's bytes (what a byte-level adapter reads: wire-event.ts `readsBytes`). */
  bytes: Uint8Array;
}

interface Manifest {
  source: string;
  /** Each case may name its own section instead (`source`). */
  cases: (Omit<AdapterCase, 'folder' | 'source' | 'body' | 'bytes'> & { source?: string })[];
  /** Files in the folder that are not response bodies (socket messages), and who reads them. */
  notBodies?: { file: string; reason: string }[];
}

function readManifest(folder: string): Manifest {
  return JSON.parse(readFileSync(manifestPath(folder), 'utf8')) as Manifest;
}

/** Every file a folder's manifest accounts for: its cases and the files that are not bodies. */
export function listedFiles(folder: string): string[] {
  const manifest = readManifest(folder);
  return [...manifest.cases.map((c) => c.file), ...(manifest.notBodies ?? []).map((n) => n.file)];
}

export const FIXTURE_ROOT = fileURLToPath(new URL('../fixtures/wire/', import.meta.url));

/** Every fixture folder (each must have a manifest). */
export function fixtureFolders(): string[] {
  return readdirSync(FIXTURE_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

export function manifestPath(folder: string): string {
  return `${FIXTURE_ROOT}${folder}/cases.json`;
}

/** Every case of every folder that has a manifest. */
export function adapterCases(): AdapterCase[] {
  return fixtureFolders().flatMap((folder) => {
    if (!existsSync(manifestPath(folder))) return [];
    const manifest = readManifest(folder);
    return manifest.cases.map((c) => {
      const bytes = readFileSync(`${FIXTURE_ROOT}${folder}/${c.file}`);
      const body = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
      return { ...c, folder, source: c.source ?? manifest.source, body, bytes };
    });
  });
}

/** No rules at all: whatever an adapter does, the page must get the server's bytes. */
export function emptyPack(): CompiledPack {
  return compilePack({ name: 'empty', version: '1', rules: [] });
}

/** The core pack with every redaction turned into a block, for block-ending checks. */
export function blockAllPack(): CompiledPack {
  return compilePack({
    name: 'block-all',
    version: '1',
    rules: getCorePack().rules.map((rule) =>
      rule.spec.action === 'redact' ? { ...rule.spec, action: 'block' as const } : rule.spec,
    ),
  });
}

/** The core pack with one rule's action turned into a block (the others as they are). */
export function coreWithBlock(ruleId: string): CompiledPack {
  return compilePack({
    name: `core-${ruleId}-blocks`,
    version: '1',
    rules: getCorePack().rules.map((rule) =>
      rule.id === ruleId ? { ...rule.spec, action: 'block' as const } : rule.spec,
    ),
  });
}
