/**
 * Where the repository's files are, seen from the benchmark (which runs from bench/dist/).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Absolute path of the repository root (the promotion-gateway package). */
export function repoRoot(): string {
  return dirname(createRequire(import.meta.url).resolve('promotion-gateway/package.json'));
}

/** Absolute path of a file in the repository. */
export function repoPath(...segments: string[]): string {
  return join(repoRoot(), ...segments);
}
