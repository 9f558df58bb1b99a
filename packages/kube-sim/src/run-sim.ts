/**
 * `kube-sim`: starts a fleet, writes its kubeconfig, prints where everything is, and runs until
 * SIGINT/SIGTERM (or the given abort signal), then closes cleanly.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { portOption, waitForStop } from 'sim-kit';
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
  const basePort = portOption(values.port, '--port');
  const adminPort = portOption(values['admin-port'], '--admin-port');
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
