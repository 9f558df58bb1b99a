/**
 * `kube-sim`: starts a fleet, writes its kubeconfig, prints where everything is, and runs until
 * SIGINT/SIGTERM (or the given abort signal), then closes cleanly.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startFleet } from './fleet.js';
import { applyFiles } from './manifests.js';

/** Usage text of the sim command. */
export const SIM_USAGE = `Usage: kube-sim [options]
  --clusters a,b,c     cluster names (default: management,dev)
  --port N             first API port; cluster i gets N+i (default: ephemeral)
  --admin-port N       admin endpoint port (default: ephemeral)
  --kubeconfig PATH    where to write the kubeconfig (default: ./sim.kubeconfig)
  --apply PATH         YAML file to apply to every cluster at start (repeatable; CRDs first)
  --plain-http         serve plain HTTP instead of HTTPS with a self-signed certificate
                       (kubectl sends no bearer token to plain-HTTP servers)
  --help               this text
`;

/** Options for tests and embedding: `signal` stops the simulator instead of a process signal. */
export interface RunSimOptions {
  signal?: AbortSignal;
}

/** A mistake on the command line (as opposed to a failure while running). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** True for a command-line mistake: ours, or one of Node's parseArgs errors. */
export function isUsageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
  );
}

function port(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`${flag} must be a port number, got ${value}`);
  return n;
}

function waitForStop(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      done();
    };
    if (signal?.aborted === true) {
      done();
      return;
    }
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop);
  });
}

/** Runs the simulator until stopped. Throws on bad arguments (the caller prints SIM_USAGE). */
export async function runSim(
  argv: string[],
  out: NodeJS.WritableStream,
  opts: RunSimOptions = {},
): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      clusters: { type: 'string', default: 'management,dev' },
      port: { type: 'string' },
      'admin-port': { type: 'string' },
      kubeconfig: { type: 'string', default: './sim.kubeconfig' },
      apply: { type: 'string', multiple: true, default: [] },
      'plain-http': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const clusters = values.clusters
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const basePort = port(values.port, '--port');
  const adminPort = port(values['admin-port'], '--admin-port');
  const fleet = await startFleet({
    clusters,
    ...(basePort !== undefined ? { basePort } : {}),
    ...(adminPort !== undefined ? { adminPort } : {}),
    ...(values['plain-http'] ? { tls: false } : {}),
  });
  try {
    for (const c of fleet.clusters) await applyFiles(c, values.apply);
    const kubeconfigPath = resolve(values.kubeconfig);
    await fleet.writeKubeconfig(kubeconfigPath);
    for (const c of fleet.clusters) out.write(`kube-sim cluster ${c.name}: ${c.url}\n`);
    out.write(`kube-sim admin endpoint: ${fleet.adminUrl}\n`);
    out.write(
      `kube-sim kubeconfig: ${kubeconfigPath} (contexts: ${clusters.join(', ')}; users <cluster>-admin)\n`,
    );
    out.write('kube-sim running; press Ctrl-C to stop\n');
    await waitForStop(opts.signal);
  } finally {
    await fleet.close();
    out.write('kube-sim stopped\n');
  }
}
