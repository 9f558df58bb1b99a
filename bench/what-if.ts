/**
 * Part (h): the what-if API over a fleet of 1,000 Pipelines. A platform team asks what a policy
 * change would do before making it: `POST /v1/what-if` with a policy adding a deny window for
 * prod and a soak change (1 h) for prod, answered per Pipeline and environment. Measured side by
 * side with the same call under the unchanged policy (`{}`: both sides decided, nothing
 * proposed), the calls in turn, one at a time; the bar is the proposed call's p95 under 1 s.
 */
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { installRelease } from 'kube-sim/flux';
import {
  APP_NAMESPACE,
  demoPipeline,
  DEMO_ENVIRONMENTS,
  FLUX_NAMESPACE,
  GATEWAY_USER,
  startDemoFleet,
} from '@promotion-gateway/demo';
import { KubeConfig, createGateway, createLogger, defaultConfig } from 'promotion-gateway';
import type { BarResult } from './report.js';

/** The bar: a proposed policy over 1,000 Pipelines is answered within this (p95). */
export const MAX_WHAT_IF_MS = 1_000;

const FROM = '6.5.0';
const TO = '6.6.0';
const ISSUER = 'https://bench.example';
const AUDIENCE = 'promotion-gateway';

/** The proposed policy: a deny window on prod 23 h of every 24, and prod's soak at 1 h. */
export const PROPOSED_POLICY = {
  windows: [
    {
      name: 'freeze',
      type: 'Deny',
      cron: '0 0 * * *',
      duration: 'PT23H',
      timeZone: 'UTC',
      environments: ['prod'],
    },
  ],
  pipelines: [
    { selector: 'tier=bench', environments: ['prod'], promotion: { soak: { duration: '1h' } } },
  ],
};

/** One side's figures. */
export interface WhatIfSide {
  medianMs: number;
  p95Ms: number;
  /** Environments whose decision the policy changes (0 for the unchanged policy). */
  changed: number;
  /** Of those, how many in each environment. */
  changedByEnvironment: Record<string, number>;
  bytes: number;
}

/** What part (h) reports. */
export interface WhatIfResult {
  pipelines: number;
  calls: number;
  proposed: WhatIfSide;
  unchanged: WhatIfSide;
  /** Proposed / unchanged, medians. */
  ratio: number;
}

interface Answer {
  changed: number;
  pipelines: { environments: { environment: string; changed: boolean }[] }[];
}

/**
 * Pipelines `bench-whatif-<i>` labelled tier=bench, dev and staging at TO, prod at FROM, so that
 * the fleet (with the demo's own) holds `total`.
 */
function addPipelines(demo: Awaited<ReturnType<typeof startDemoFleet>>, total: number): void {
  const management = demo.fleet.cluster('management');
  const existing = management.list('pipelines.weave.works/v1alpha1', 'Pipeline').length;
  for (let i = 0; i < total - existing; i++) {
    const name = `bench-whatif-${String(i)}`;
    for (const env of DEMO_ENVIRONMENTS)
      installRelease(
        demo.fleet.cluster(env),
        { namespace: APP_NAMESPACE, name },
        env === 'prod' ? FROM : TO,
      );
    const pipeline = demoPipeline(name, ['bench-approver']);
    management.apply({
      ...pipeline,
      metadata: { ...pipeline.metadata, labels: { tier: 'bench' } },
    });
  }
}

function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

function side(samples: number[], answer: Answer, bytes: number): WhatIfSide {
  const changedByEnvironment: Record<string, number> = {};
  for (const p of answer.pipelines)
    for (const e of p.environments)
      if (e.changed)
        changedByEnvironment[e.environment] = (changedByEnvironment[e.environment] ?? 0) + 1;
  return {
    medianMs: quantile(samples, 0.5),
    p95Ms: quantile(samples, 0.95),
    changed: answer.changed,
    changedByEnvironment,
    bytes,
  };
}

/** Runs part (h): `pipelines` Pipelines, `calls` calls per side, in turn. */
export async function measureWhatIf(pipelines: number, calls: number): Promise<WhatIfResult> {
  const demo = await startDemoFleet();
  addPipelines(demo, pipelines);
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(demo.fleet.cluster('management').kubeconfig(GATEWAY_USER));
  const config = defaultConfig({
    server: { host: '127.0.0.1', port: 0 },
    rateLimit: { max: 1_000_000_000 },
    management: { name: 'management' },
    clusters: DEMO_ENVIRONMENTS.map((name) => ({
      name,
      gitopsCluster: { namespace: FLUX_NAMESPACE, name },
      hmacKeys: [{ value: demo.hmacKeys[name] ?? '' }],
    })),
    jwt: {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['ES256'],
      publicKeys: [{ value: await exportSPKI(publicKey) }],
    },
    resync: { intervalMs: 600_000 },
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
    const token = await new SignJWT({ pipelines: ['*'] })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('bench-platform-team')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const call = async (policy: object) => {
      const started = performance.now();
      const response = await fetch(`${url}/v1/what-if`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(policy),
      });
      const text = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200)
        throw new Error(`what-if answered ${String(response.status)}: ${text.slice(0, 300)}`);
      return { ms, answer: JSON.parse(text) as Answer, bytes: text.length };
    };
    // One of each first, not measured: the first call compiles and warms what later ones reuse.
    await call(PROPOSED_POLICY);
    await call({});
    const samples = { proposed: [] as number[], unchanged: [] as number[] };
    let last = { proposed: await call(PROPOSED_POLICY), unchanged: await call({}) };
    for (let i = 0; i < calls; i++) {
      const proposed = await call(PROPOSED_POLICY);
      const unchanged = await call({});
      samples.proposed.push(proposed.ms);
      samples.unchanged.push(unchanged.ms);
      last = { proposed, unchanged };
    }
    const proposed = side(samples.proposed, last.proposed.answer, last.proposed.bytes);
    const unchanged = side(samples.unchanged, last.unchanged.answer, last.unchanged.bytes);
    const total = last.proposed.answer.pipelines.length;
    return {
      pipelines: total,
      calls,
      proposed,
      unchanged,
      ratio: unchanged.medianMs === 0 ? 0 : proposed.medianMs / unchanged.medianMs,
    };
  } finally {
    await gateway.close();
    await demo.fleet.close();
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Part (h)'s lines in the report. */
export function whatIfLines(result: WhatIfResult): string[] {
  const { proposed, unchanged } = result;
  const byEnv = Object.entries(proposed.changedByEnvironment)
    .map(([env, n]) => `${env} ${String(n)}`)
    .join(', ');
  return [
    `(h) what-if over ${String(result.pipelines)} Pipelines, ${String(result.calls)} calls per side in turn:`,
    `  proposed (deny window + soak change): median ${ms(proposed.medianMs)}, p95 ${ms(proposed.p95Ms)}; ${String(proposed.changed)} environments change (${byEnv || 'none'}); ${String(Math.round(proposed.bytes / 1024))} KB answer`,
    `  unchanged policy ({}): median ${ms(unchanged.medianMs)}, p95 ${ms(unchanged.p95Ms)}; ${String(unchanged.changed)} change; ratio proposed / unchanged ${result.ratio.toFixed(2)}x (medians)`,
  ];
}

/** Part (h)'s bar. */
export function whatIfBars(result: WhatIfResult): BarResult[] {
  return [
    {
      name: `what-if: ${String(result.pipelines)} Pipelines, deny window + soak change (p95)`,
      measured: ms(result.proposed.p95Ms),
      bar: `< ${String(MAX_WHAT_IF_MS)} ms`,
      pass: result.proposed.p95Ms < MAX_WHAT_IF_MS && result.proposed.changed > 0,
    },
  ];
}
