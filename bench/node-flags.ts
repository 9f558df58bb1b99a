/**
 * The Node.js flags the gateway runs with in production, read from the Dockerfile's exec-form
 * ENTRYPOINT (`["node", <flags>..., "dist/server.js"]`), and the allocator settings its image
 * sets (`ENV MALLOC_*`), so the benchmark starts the gateway (and, for equal conditions, the bare
 * server) exactly as the image does and cannot drift from it.
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

/** `MALLOC_*` variables set by `ENV` lines of `dockerfile` (either ENV form, continued lines). */
export function allocatorEnvironment(dockerfile: string): Record<string, string> {
  const out: Record<string, string> = {};
  const joined = dockerfile.replace(/\\\r?\n/g, ' ');
  for (const line of joined.split(/\r?\n/)) {
    const env = /^ENV\s+(.*)$/.exec(line.trim())?.[1];
    if (env === undefined) continue;
    const pairs = env.includes('=')
      ? env.split(/\s+/).map((p) => p.split('='))
      : [env.split(/\s+/)];
    for (const [name, value] of pairs) {
      if (name?.startsWith('MALLOC_') === true && value !== undefined) out[name] = value;
    }
  }
  return out;
}

/**
 * Sets the image's allocator settings in this process's environment, so every process the
 * benchmark forks from now on (gateway, bare server, simulators alike) starts with them: glibc
 * reads them at start-up, so they cannot be set later from inside a process.
 */
export function applyProductionEnvironment(): void {
  Object.assign(process.env, allocatorEnvironment(readFileSync(repoPath('Dockerfile'), 'utf8')));
}
