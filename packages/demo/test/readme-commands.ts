/**
 * The README's own commands, for the story to run as a reader would: a line of the README, run
 * through `sh` in the repository's root, once the demo's dist/ is built.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository's root. */
export const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The command of the README line `pattern` matches (its comment left out). */
export function readmeCommand(pattern: RegExp): string {
  const line = readFileSync(join(ROOT, 'README.md'), 'utf8')
    .split('\n')
    .find((l) => pattern.test(l));
  if (line === undefined) throw new Error(`README.md has no line matching ${String(pattern)}`);
  return line.replace(/\s+#.*$/, '').trim();
}

/** True when the demo's dist/ is at least as new as its sources. */
export function demoBuilt(): boolean {
  const dist = join(ROOT, 'packages', 'demo', 'dist');
  const src = join(ROOT, 'packages', 'demo', 'src');
  return readdirSync(src).every((f) => {
    const built = join(dist, f.replace(/\.ts$/, '.js'));
    return existsSync(built) && statSync(built).mtimeMs >= statSync(join(src, f)).mtimeMs;
  });
}

/** Runs `command` in the repository's root with this Node first on PATH (npm runs on it). */
export function sh(command: string): Promise<{ stdout: string; stderr: string }> {
  const path = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      ['-c', command],
      { cwd: ROOT, env: { ...process.env, PATH: path } },
      (err, stdout, stderr) => {
        if (err === null) resolve({ stdout, stderr });
        else reject(new Error(`${command}: ${err.message}\n${stderr}`));
      },
    );
  });
}
