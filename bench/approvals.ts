/**
 * Part (d): an approval's round trip. Approvals are not a hot path, but a person waits on the
 * answer: this is the time from POSTing a signed statement until its 202, which covers the
 * statement's verification, the verified re-read of upstream and the record written to the
 * Pipeline status in kube-sim. Sequential, one Pipeline per approval, each waiting for it.
 */
import { randomUUID } from 'node:crypto';
import { exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { installRelease } from 'kube-sim/flux';
import type { SimCluster } from 'kube-sim';
import {
  APP_NAMESPACE,
  demoPipeline,
  DEMO_ENVIRONMENTS,
  FLUX_NAMESPACE,
  GATEWAY_USER,
  startDemoFleet,
} from '@promotion-gateway/demo';
import {
  KubeConfig,
  createGateway,
  createLogger,
  defaultConfig,
  signStatement,
} from 'promotion-gateway';
import { Histogram, summarize, type LatencySummary } from './histogram.js';

/** What part (d) reports. */
export interface ApprovalResult {
  approvals: number;
  /** Answers other than 202 (each is a failure of the bench's set-up or of the gateway). */
  refused: number;
  /** Pipelines whose prod was promoted once the approvals were in. */
  promoted: number;
  latency: LatencySummary;
}

const APPROVER = 'bench-approver';
const FROM = '6.5.0';
const TO = '6.6.0';
const PIPELINE_API = 'pipelines.weave.works/v1alpha1';

/** Pipelines `bench-approval-<i>`: dev and staging at TO, prod at FROM behind one approval. */
function addPipelines(management: SimCluster, envs: (env: string) => SimCluster, count: number) {
  const names = Array.from({ length: count }, (_, i) => `bench-approval-${String(i)}`);
  for (const name of names) {
    for (const env of DEMO_ENVIRONMENTS)
      installRelease(envs(env), { namespace: APP_NAMESPACE, name }, env === 'prod' ? FROM : TO);
    management.apply(demoPipeline(name, [APPROVER]));
  }
  return names;
}

async function approve(url: string, name: string, key: CryptoKey): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: APPROVER, pipeline: `${APP_NAMESPACE}/${name}`, environment: 'prod' };
  const jws = await signStatement(
    { ...claims, revision: TO, decision: 'approve', iat: now, exp: now + 300, jti: randomUUID() },
    key,
    'EdDSA',
  );
  const path = `/v1/pipelines/${APP_NAMESPACE}/${name}/environments/prod/approvals`;
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/jose' },
    body: jws,
  });
  await response.arrayBuffer();
  return response.status;
}

/** Runs part (d) with `count` approvals against a fresh demo fleet and an in-process gateway. */
export async function measureApprovals(count: number): Promise<ApprovalResult> {
  const demo = await startDemoFleet();
  const management = demo.fleet.cluster('management');
  const names = addPipelines(management, (env) => demo.fleet.cluster(env), count);
  const { privateKey, publicKey } = await generateKeyPair('EdDSA');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(management.kubeconfig(GATEWAY_USER));
  const config = defaultConfig({
    server: { host: '127.0.0.1', port: 0 },
    management: { name: 'management' },
    clusters: DEMO_ENVIRONMENTS.map((name) => ({
      name,
      gitopsCluster: { namespace: FLUX_NAMESPACE, name },
      hmacKeys: [{ value: demo.hmacKeys[name] ?? '' }],
    })),
    resync: { intervalMs: 600_000 },
    approvals: {
      approvers: [{ name: APPROVER, publicKeys: [{ value: await exportSPKI(publicKey) }] }],
    },
    logLevel: 'warn',
  });
  const gateway = await createGateway({
    config,
    managementKubeConfig: kubeConfig,
    logger: createLogger('warn'),
  });
  try {
    const url = await gateway.listen();
    await gateway.start();
    await gateway.resync();
    await gateway.idle();
    const histogram = new Histogram();
    let refused = 0;
    for (const name of names) {
      const started = process.hrtime.bigint();
      const status = await approve(url, name, privateKey);
      histogram.recordNs(Number(process.hrtime.bigint() - started));
      if (status !== 202) refused += 1;
    }
    await gateway.idle();
    const promoted = names.filter((name) => {
      const pipeline = management.get(PIPELINE_API, 'Pipeline', APP_NAMESPACE, name) as
        | { status?: { environments?: { prod?: { promotion?: { revision?: string } } } } }
        | undefined;
      return pipeline?.status?.environments?.prod?.promotion?.revision === TO;
    }).length;
    return { approvals: count, refused, promoted, latency: summarize(histogram.toData()) };
  } finally {
    await gateway.close();
    await demo.fleet.close();
  }
}

/** Part (d)'s line in the report. */
export function approvalLine(result: ApprovalResult): string {
  const { latency } = result;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return (
    `(d) approval round trip (signed statement -> verified re-read -> record in the Pipeline ` +
    `status -> 202), ${String(result.approvals)} sequential: p50 ${ms(latency.p50Ms)}, ` +
    `p99 ${ms(latency.p99Ms)}, max ${ms(latency.maxMs)}; ${String(result.refused)} refused, ` +
    `${String(result.promoted)} of ${String(result.approvals)} prods promoted`
  );
}
