/**
 * The gateway's process entry (src/server.ts) bundled with esbuild for the replicas the chaos
 * test runs as child processes. A fresh clone runs the tests without a build, so the test makes
 * its own: into node_modules/.cache (ignored by Git, inside the repository so that the bundle's
 * external packages resolve from the repository's node_modules and src/paths.ts finds the
 * package root), in a directory of its own per run, removed afterwards.
 */
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A built gateway: the file to run with `node`, and how to remove it. */
export interface GatewayBundle {
  file: string;
  remove(): void;
}

/** Bundles src/server.ts (dependencies left as imports) into a fresh directory. */
export async function bundleGateway(): Promise<GatewayBundle> {
  const parent = join(ROOT, 'test-results', 'chaos');
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, 'build-'));
  const file = join(dir, 'server.mjs');
  await build({
    entryPoints: [join(ROOT, 'src', 'server.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // Dependencies load from node_modules as they would from the image: only our code is built.
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  return {
    file,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      // The parent too once no other run's build is in it (rmdir refuses a non-empty one).
      try {
        rmdirSync(parent);
      } catch {
        // another run's build is still there, or it is gone already
      }
    },
  };
}
