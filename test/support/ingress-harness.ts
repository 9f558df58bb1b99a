/**
 * Test harness for the HTTP edge: a real gateway on 127.0.0.1:<random port> with fake deps
 * that record what the routes asked of them, plus a captured log stream.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWTPayload } from 'jose';
import { buildApp, type AppDeps } from '../../src/ingress/http-app.js';
import type { GatewayConfig } from '../../src/config/gateway-config.js';
import type { EnqueueResult, HintSource } from '../../src/hints/sinks.js';
import { pipelineRef } from '../../src/pipeline/id.js';
import type { ObjectKey } from '../../src/pipeline/object-key.js';
import type { PipelineView } from '../../src/reconcile/view.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { packagePath } from '../../src/paths.js';

/** The byte-exact Flux generic-hmac vector. */
export const VECTOR = (() => {
  const dir = packagePath('test', 'fixtures', 'flux', 'events');
  const meta = JSON.parse(readFileSync(`${dir}/01-generic-hmac-test-vector.meta.json`, 'utf8')) as {
    hmacKeyUtf8: string;
    expectedHeaders: Record<string, string>;
  };
  return {
    body: readFileSync(`${dir}/01-generic-hmac-test-vector.body.json`),
    key: Buffer.from(meta.hmacKeyUtf8, 'utf8'),
    headers: meta.expectedHeaders,
  };
})();

/** Reads a pretty-printed event fixture as raw bytes. */
export function fixture(name: string): Buffer {
  return readFileSync(packagePath('test', 'fixtures', 'flux', 'events', name));
}

export const ISSUER = 'https://issuer.test';
export const AUDIENCE = 'promotion-gateway';
export const PROD_KEYS = [
  Buffer.from('prod-key-old-0123456789'),
  Buffer.from('prod-key-new-9876543210'),
];

/** An RSA key pair for RS256 tokens; the public half is configured as PEM SPKI. */
export interface JwtFixture {
  privateKey: CryptoKey;
  publicPem: string;
  sign(
    claims: JWTPayload,
    options?: { issuer?: string; audience?: string; exp?: number | string },
  ): Promise<string>;
}

export async function jwtFixture(): Promise<JwtFixture> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicPem = await exportSPKI(publicKey);
  return {
    privateKey,
    publicPem,
    sign: (claims, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuer(options.issuer ?? ISSUER)
        .setAudience(options.audience ?? AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(options.exp ?? '5m')
        .sign(privateKey),
  };
}

/** A complete configuration with clusters dev (vector key) and prod (two rotating keys). */
export function testConfig(publicPem?: string): GatewayConfig {
  return {
    server: {
      host: '127.0.0.1',
      port: 0,
      bodyLimitBytes: 64 * 1024,
      requestTimeoutMs: 10_000,
      trustProxy: false,
    },
    rateLimit: { max: 1000, timeWindowMs: 60_000 },
    management: { name: 'mgmt' },
    pipelineNamespaces: [],
    clusters: [
      { name: 'dev', hmacKeys: [VECTOR.key], jwtSubjects: ['flux-dev'] },
      { name: 'prod', hmacKeys: PROD_KEYS, jwtSubjects: ['flux-prod'] },
    ],
    ...(publicPem === undefined
      ? {}
      : {
          jwt: {
            issuer: ISSUER,
            audience: AUDIENCE,
            algorithms: ['RS256'],
            publicKeys: [publicPem],
            clockToleranceSeconds: 5,
            maxTokenAgeSeconds: 86_400,
          },
        }),
    hints: {
      capacity: 100,
      perClusterConcurrency: 2,
      retryBaseMs: 100,
      retryMaxMs: 1000,
      maxRetries: 3,
    },
    resync: { intervalMs: 60_000, jitter: 0.1 },
    leaderElection: {
      enabled: true,
      namespace: 'flux-system',
      name: 'promotion-gateway-resync',
      identity: 'test',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    },
    promotion: {
      retry: { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 10_000, claimTimeoutMs: 60_000 },
      webhooks: {},
      pullRequest: {
        author: { name: 'promotion-gateway', email: 'promotion-gateway@noreply.invalid' },
        commitMessage: 'Promote {namespace}/{pipeline} in {environment} to {revision}',
        allowedHosts: [],
        allowPlainHttp: true,
        gitTimeoutMs: 10_000,
        attemptTimeoutMs: 60_000,
        apiTimeoutMs: 5_000,
        refreshIntervalMs: 0,
      },
      instanceId: 'test',
      windows: [],
    },
    authorizations: {
      approvers: [],
      groupsClaim: 'groups',
      maxStatementLifetimeSeconds: 900,
      clockToleranceSeconds: 30,
      floors: {},
      legacyEndpoint: false,
      ci: { issuers: [], policies: [] },
    },
    checks: { maxConcurrent: 8, http: { allowedUrlPrefixes: [] } },
    notifications: {
      crossNamespace: false,
      allowedUrlPrefixes: [],
      enabled: false,
      intervalMs: 1000,
      retryBaseMs: 1000,
      retryMaxMs: 600_000,
      horizonMs: 86_400_000,
      previewWaitMs: 3_000,
    },
    trains: { crossNamespace: false },
    logLevel: 'debug',
  };
}

/** What a test may override when starting a gateway. */
export interface GatewayOptions {
  config?: GatewayConfig;
  offer?: (key: ObjectKey) => EnqueueResult;
  requestPipeline?: (namespace: string, name: string) => 'queued' | 'unknown' | 'full';
  views?: Record<string, PipelineView>;
  /** Pipelines the gateway holds, evaluated (in `views`) or not yet. */
  held?: readonly string[];
  legacyKeys?: AppDeps['legacyKeys'];
  readiness?: AppDeps['readiness'];
}

/** A running gateway and the recordings of its fakes. */
export interface Gateway {
  url: string;
  offers: { key: ObjectKey; source: HintSource }[];
  /** Legacy webhook calls that reached the Pipeline (a hint for each of its targets). */
  pipelineRequests: { namespace: string; name: string; source: 'legacy-webhook' }[];
  logs: string[];
  metricsText(): Promise<string>;
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const offers: Gateway['offers'] = [];
  const pipelineRequests: Gateway['pipelineRequests'] = [];
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString('utf8'));
      callback();
    },
  });
  const config = options.config ?? testConfig();
  const metrics = createMetrics({
    clusters: config.clusters.map((c) => c.name),
    defaultMetrics: false,
  });
  const app = await buildApp({
    config,
    logger: createLogger('debug', sink),
    metrics,
    hints: {
      offer: (key, source) => {
        offers.push({ key, source });
        return options.offer?.(key) ?? 'queued';
      },
    },
    pipelines: {
      hintPipeline: (id) => {
        const { namespace, name } = pipelineRef(id);
        pipelineRequests.push({ namespace, name, source: 'legacy-webhook' });
        return options.requestPipeline?.(namespace, name) ?? 'queued';
      },
      view: (id) => options.views?.[id],
      holds: (id) => options.held?.includes(id) === true || options.views?.[id] !== undefined,
    },
    legacyKeys: options.legacyKeys ?? (() => undefined),
    readiness: options.readiness ?? (() => ({ ready: true, reasons: [] })),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    offers,
    pipelineRequests,
    logs,
    metricsText: () => metrics.registry.metrics(),
    close: () => app.close(),
  };
}

/** POSTs exact bytes with the given headers (content-type defaults to application/json). */
export function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<Response> {
  // Headers.set is case-insensitive, so the fixture's `Content-Type` replaces the default.
  const merged = new Headers({ 'content-type': 'application/json' });
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return fetch(url, { method: 'POST', body, headers: merged });
}
