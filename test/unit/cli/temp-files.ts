/** A temporary directory per test file for packs, inputs and `--events` output. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class TempFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'csg-cli-test-'));

  path(name: string): string {
    return join(this.dir, name);
  }

  write(name: string, content: string | Buffer): string {
    const path = this.path(name);
    writeFileSync(path, content);
    return path;
  }

  writeJson(name: string, value: unknown): string {
    return this.write(name, JSON.stringify(value, null, 2));
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
