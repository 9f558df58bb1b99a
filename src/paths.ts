import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the package root (the folder holding our package.json), from src/ or dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'promotion-gateway') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('promotion-gateway package root not found');
    dir = parent;
  }
}

/** Absolute path of a file shipped with the package (schemas/, manifests/). */
export function packagePath(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}
