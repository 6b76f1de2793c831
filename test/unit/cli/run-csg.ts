/**
 * Runs the real `csg` launcher (`node bin/csg.js …`) as a child process, the
 * way a person or a script would, and collects its exit status and output.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const csgBin = fileURLToPath(new URL('../../../bin/csg.js', import.meta.url));

export interface CsgRun {
  code: number | null;
  stdout: Buffer;
  /** stdout decoded as UTF-8. */
  out: string;
  stderr: string;
}

export interface CsgInput {
  /** Written to stdin, then stdin is closed. */
  stdin?: string | Buffer;
  /**
   * Written to stdin one after the other; before each piece after the first,
   * wait until stdout contains the matching `waitFor` text, so the pieces reach
   * csg as separate reads.
   */
  pieces?: { data: Buffer; waitFor?: string }[];
}

export function runCsg(args: readonly string[], input: CsgInput = {}): Promise<CsgRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [csgBin, ...args], { stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const waiters: { text: string; go: () => void }[] = [];
    child.stdout.on('data', (b: Buffer) => {
      out.push(b);
      const so = Buffer.concat(out).toString('utf8');
      for (const w of waiters.splice(0)) {
        if (so.includes(w.text)) w.go();
        else waiters.push(w);
      }
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      resolve({
        code,
        stdout,
        out: stdout.toString('utf8'),
        stderr: Buffer.concat(err).toString(),
      });
    });
    child.stdin.on('error', () => {
      // csg may exit (bad usage) before reading its input; that is not a test failure.
    });
    const feed = async (): Promise<void> => {
      for (const piece of input.pieces ?? []) {
        const waitFor = piece.waitFor;
        if (waitFor !== undefined) {
          await new Promise<void>((go) => {
            if (Buffer.concat(out).toString('utf8').includes(waitFor)) go();
            else waiters.push({ text: waitFor, go });
          });
        }
        child.stdin.write(piece.data);
      }
      if (input.stdin !== undefined) child.stdin.write(input.stdin);
      child.stdin.end();
    };
    feed().catch(reject);
  });
}
