/**
 * Every API door of the gateway in process, on a real socket, with fakes behind it that
 * record what reached them: hints offered (Flux events), Pipelines hinted (legacy webhook),
 * authorizations submitted (approvals, CI triggers, legacy approvals), halts and lifts (of one
 * Pipeline, across Pipelines) and reads of the Pipelines' views. Credentials are real: HMAC
 * keys, an API JWT key, an SSO and a CI issuer (local key sets), two approvers' keys.
 */
import { Writable } from 'node:stream';
import { createLocalJWKSet } from 'jose';
import { buildApp, type AppDeps } from '../../../src/ingress/http-app.js';
import { checkHaltStatement } from '../../../src/auth/halt-statement.js';
import { OidcVerifier } from '../../../src/auth/oidc.js';
import { Principals } from '../../../src/auth/principals.js';
import type {
  AuthorizationConfig,
  GatewayConfig,
  OidcIssuerConfig,
} from '../../../src/config/gateway-config.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { pipelineId } from '../../../src/pipeline/id.js';
import type { Authorizer } from '../../../src/approvals/authorizer.js';
import type { FleetHalter } from '../../../src/halts/fleet-halter.js';
import type { Halter } from '../../../src/halts/halter.js';
import { AUDIENCE, ISSUER, PROD_KEYS, VECTOR, testConfig } from '../ingress-harness.js';
import { fakeAuthorizer, fakeFleetHalter, fakeHalter } from './fakes.js';
import { newSigner, type Signer } from './jws.js';

/** The issuer of people's SSO tokens. */
export const SSO_ISSUER = 'https://sso.fuzz.test';
/** The CI issuer (GitHub Actions' name; its keys are the fuzzer's own). */
export const CI_ISSUER = 'https://token.actions.githubusercontent.com';
/** The API JWT's issuer and the audience of every token (ingress-harness.ts). */
export { AUDIENCE, ISSUER };
/** The Pipeline every door's valid requests name; it has a legacy key and a view. */
export const PIPELINE = { namespace: 'apps', name: 'podinfo' } as const;
/** A Pipeline the gateway holds but has not evaluated yet. */
export const FRESH = { namespace: 'apps', name: 'fresh' } as const;
/** PIPELINE's legacy `hmac-key`. */
export const LEGACY_KEY = Buffer.from('legacy-fuzz-key-0123456789');
/** What the CI policy matches: this repository's main branch, on prod of apps/*. */
export const CI_CLAIMS = { repository: 'acme/podinfo', ref: 'refs/heads/main' } as const;

/** The signers of every credential the doors take, and an attacker of each kind. */
export interface DoorKeys {
  api: Signer;
  sso: Signer;
  ci: Signer;
  alice: Signer;
  bob: Signer;
  attackerRsa: Signer;
  attackerEd: Signer;
  attackerEc: Signer;
}

/**
 * What the request generators need to know of a gateway: the keys, the Pipeline with a legacy
 * key (and a view), the clusters with their HMAC keys, and what CI policies allow.
 */
export interface DoorContext {
  keys: DoorKeys;
  pipeline: { namespace: string; name: string };
  legacyKey: Buffer;
  clusters: readonly { name: string; keys: readonly Buffer[] }[];
}

/** Fresh signers for every credential kind. */
export function doorKeys(): DoorKeys {
  return {
    api: newSigner('RS256', ''),
    sso: newSigner('RS256', 'k1'),
    ci: newSigner('RS256', 'k1'),
    alice: newSigner('EdDSA', 'alice'),
    bob: newSigner('ES256', 'bob'),
    attackerRsa: newSigner('RS256', 'k1'),
    attackerEd: newSigner('EdDSA', 'alice'),
    attackerEc: newSigner('ES256', 'bob'),
  };
}

/** An OIDC issuer's settings; its keys are given to the verifier, the URL is never fetched. */
export function issuer(iss: string): OidcIssuerConfig {
  return {
    issuer: iss,
    audience: AUDIENCE,
    jwksUrl: 'http://127.0.0.1:9/unused',
    algorithms: ['RS256'],
    maxTokenAgeSeconds: 3600,
    clockToleranceSeconds: 30,
  };
}

/** Approvers alice (EdDSA, also SSO) and bob (ES256), SSO, a CI issuer and its policy. */
export function authorizationConfig(
  keys: DoorKeys,
  base: AuthorizationConfig,
): AuthorizationConfig {
  return {
    ...base,
    approvers: [
      {
        name: 'alice',
        publicKeys: [keys.alice.publicPem],
        oidcSubjects: [`${SSO_ISSUER}#alice-sub`],
        groups: ['release'],
      },
      { name: 'bob', publicKeys: [keys.bob.publicPem], oidcSubjects: [], groups: [] },
    ],
    oidc: issuer(SSO_ISSUER),
    legacyEndpoint: true,
    ci: {
      issuers: [{ name: 'github', ...issuer(CI_ISSUER) }],
      policies: [
        {
          name: 'deploy',
          issuer: 'github',
          claims: CI_CLAIMS,
          pipelines: ['apps/*'],
          environments: ['prod'],
        },
      ],
    },
  };
}

/** What reached the fakes: one line per state change, and the reads of Pipeline views. */
export interface Recorder {
  effects: string[];
  reads: number;
}

/** The authorization doors' dependencies: real credentials, recording fakes behind them. */
function authorizations(
  config: AuthorizationConfig,
  keys: DoorKeys,
  recorder: Recorder,
): NonNullable<AppDeps['authorizations']> {
  const local = (s: Signer) => createLocalJWKSet({ keys: [s.publicJwk] });
  const principals = new Principals(config, {
    sso: new OidcVerifier(issuer(SSO_ISSUER), local(keys.sso)),
    ci: new Map([['github', new OidcVerifier(issuer(CI_ISSUER), local(keys.ci))]]),
  });
  const record = (line: string) => {
    recorder.effects.push(line);
  };
  const statements = (statement: string, at: number) => checkHaltStatement(config, statement, at);
  // The fakes have the real classes' methods; the doors' options name the classes themselves.
  return {
    principals,
    authorizer: fakeAuthorizer(record) as Authorizer,
    halter: fakeHalter(record) as Halter,
    fleetHalts: { fleet: fakeFleetHalter(record, PIPELINE) as FleetHalter, statements },
    now: Date.now,
  };
}

/** A log stream into `logs`, at debug level: logging every refusal is fuzzed too. */
export function logSink(logs: string[]): Writable {
  return new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      logs.push(chunk.toString('utf8'));
      callback();
    },
  });
}

/**
 * The hint sink and Pipeline access of the events, legacy and status doors: each hint is an
 * effect, each view or holding looked up a read; PIPELINE has a view, FRESH is held only.
 */
function pipelineFakes(recorder: Recorder): Pick<AppDeps, 'hints' | 'pipelines'> {
  const held = new Set([pipelineId(PIPELINE), pipelineId(FRESH)]);
  const view = { ...PIPELINE, targets: {}, decisions: [], evaluatedAt: '2026-01-01T00:00:00Z' };
  const effect = (line: string) => {
    recorder.effects.push(line);
    return 'queued' as const;
  };
  return {
    hints: {
      offer: (key) => effect(`hint ${key.cluster} ${key.kind} ${key.namespace}/${key.name}`),
    },
    pipelines: {
      hintPipeline: (id) => effect(`pipeline-hint ${id}`),
      view: (id) => {
        recorder.reads++;
        return id === pipelineId(PIPELINE) ? view : undefined;
      },
      holds: (id) => {
        recorder.reads++;
        return held.has(id);
      },
    },
  };
}

/** The running doors, their keys, what reached their fakes, and the log they wrote. */
export interface DoorsApp {
  port: number;
  context: DoorContext;
  recorder: Recorder;
  config: GatewayConfig;
  /** Text that must never appear in an answer or a log line. */
  secrets: string[];
  logs: string[];
  close(): Promise<void>;
}

/** Every key of `context` as text that no answer or log line may hold. */
export function secretsOf(context: DoorContext): string[] {
  const { keys } = context;
  const pem = (s: Signer) =>
    s.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().split('\n')[2] ?? '';
  const hmac = [context.legacyKey, ...context.clusters.flatMap((c) => c.keys)].map((k) =>
    k.toString('utf8'),
  );
  return [...hmac, ...[keys.api, keys.sso, keys.ci, keys.alice, keys.bob].map(pem)];
}

/** Starts every door on 127.0.0.1:<ephemeral> with the fakes and real credentials. */
export async function startDoors(): Promise<DoorsApp> {
  const keys = doorKeys();
  const context: DoorContext = {
    keys,
    pipeline: PIPELINE,
    legacyKey: LEGACY_KEY,
    clusters: [
      { name: 'dev', keys: [VECTOR.key] },
      { name: 'prod', keys: PROD_KEYS },
    ],
  };
  const base = testConfig(keys.api.publicPem);
  const config: GatewayConfig = {
    ...base,
    server: { ...base.server, requestTimeoutMs: 3_000 },
    rateLimit: { max: 1_000_000, timeWindowMs: 60_000 },
    authorizations: authorizationConfig(keys, base.authorizations),
  };
  const recorder: Recorder = { effects: [], reads: 0 };
  const logs: string[] = [];
  const app = await buildApp({
    config,
    logger: createLogger('debug', logSink(logs)),
    metrics: createMetrics({ clusters: config.clusters.map((c) => c.name), defaultMetrics: false }),
    ...pipelineFakes(recorder),
    legacyKeys: (id) => (id === pipelineId(PIPELINE) ? LEGACY_KEY : undefined),
    readiness: () => ({ ready: true, reasons: [] }),
    authorizations: authorizations(config.authorizations, keys, recorder),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    context,
    recorder,
    config,
    secrets: secretsOf(context),
    logs,
    close: () => app.close(),
  };
}

/** Every HMAC key of `context`: the Standard Webhooks noise signs with them. */
export function hmacKeys(context: DoorContext): Buffer[] {
  return [context.legacyKey, ...context.clusters.flatMap((c) => c.keys)];
}
