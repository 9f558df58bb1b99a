/**
 * The kube-sim fleet of the benchmark, run as a child process (see fleet.ts) so the gateway's
 * process holds only the gateway: its memory and event loop are then the gateway's own, and the
 * simulated API servers are remote to it, as real ones would be.
 */
import { APP_NAME, APP_NAMESPACE, GATEWAY_USER, startDemoFleet } from '@promotion-gateway/demo';
import type { KubeObject } from 'promotion-gateway';
import type { FleetInfo, FleetMessage, ToFleet } from './fleet-types.js';

const HELMRELEASE_API = 'helm.toolkit.fluxcd.io/v2';

function send(message: FleetMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const demo = await startDemoFleet();
  const object = demo.fleet
    .cluster('dev')
    .get(HELMRELEASE_API, 'HelmRelease', APP_NAMESPACE, APP_NAME);
  if (object === undefined) throw new Error('demo fleet has no podinfo HelmRelease in dev');
  const info: FleetInfo = {
    adminUrl: demo.fleet.adminUrl,
    managementKubeconfig: demo.fleet.cluster('management').kubeconfig(GATEWAY_USER),
    hmacKeys: demo.hmacKeys,
    clusters: demo.fleet.clusters.map((c) => c.name),
    helmRelease: object as KubeObject,
  };
  process.on('message', (message: ToFleet) => {
    send({ type: 'rss', id: message.id, rss: process.memoryUsage().rss });
  });
  process.on('disconnect', () => {
    void demo.fleet.close().finally(() => process.exit(0));
  });
  send({ type: 'ready', info });
}

if (process.send !== undefined) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench fleet: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
