/**
 * The Node.js flags the gateway runs with in production, read from the Dockerfile's exec-form
 * ENTRYPOINT (`["node", <flags>..., "dist/server.js"]`), so the benchmark starts the gateway
 * (and, for equal conditions, the bare server) exactly as the image does and cannot drift from it.
 */
import { readFileSync } from 'node:fs';
import { repoPath } from './paths.js';

const ENTRYPOINT = /^ENTRYPOINT\s+(\[.*\])\s*$/m;

/** The flags between `node` and the script in an exec-form ENTRYPOINT line of `dockerfile`. */
export function entrypointNodeFlags(dockerfile: string): string[] {
  const json = ENTRYPOINT.exec(dockerfile)?.[1];
  if (json === undefined) throw new Error('Dockerfile has no exec-form ENTRYPOINT');
  const argv = JSON.parse(json) as unknown;
  if (!Array.isArray(argv) || argv[0] !== 'node' || !argv.every((a) => typeof a === 'string'))
    throw new Error(`Dockerfile ENTRYPOINT does not start with "node": ${json}`);
  const script = argv.findIndex((arg: string, i) => i > 0 && !arg.startsWith('-'));
  return argv.slice(1, script === -1 ? undefined : script);
}

/** The production Node.js flags from the project's Dockerfile. */
export function productionNodeFlags(): string[] {
  return entrypointNodeFlags(readFileSync(repoPath('Dockerfile'), 'utf8'));
}
