/**
 * The configuration file each gateway replica of the chaos run is started with, written as an
 * operator would (JSON, which the gateway's YAML parser reads): short timings so that retries,
 * Lease takeovers, claim timeouts and resync passes all happen within the run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENVIRONMENTS, FLUX_NAMESPACE } from '../fleet.js';

/** What every replica shares: credentials and addresses from the test. */
export interface SharedSettings {
  /** Environment -> the raw generic-hmac key of its Flux Provider. */
  hmacKeys: Record<string, string>;
  receiverUrl: string;
  /** Where the PromotionAlerts deliver (on loopback: opened by writing its address). */
  alertUrl: string;
  /** The webhook endpoint's Standard Webhooks secret (`whsec_...`). */
  webhookSecret: string;
  /** The approver's name and SPKI PEM. */
  approver: { name: string; publicKeyPem: string };
  /** The API reader's issuer and SPKI PEM (EdDSA). */
  reader: { issuer: string; audience: string; publicKeyPem: string };
  logLevel: string;
}

/** Lease timings: a killed leader's Lease is taken over about 5 s after its last renewal. */
export const LEASE = { leaseDurationMs: 5_000, renewDeadlineMs: 4_000, retryPeriodMs: 500 };
/** The resync interval: short, so the leader's passes happen several times in a run. */
export const RESYNC_MS = 15_000;
/**
 * Retries: many attempts with a short backoff, so a receiver down for 15 s delays a promotion
 * and never exhausts it; the claim timeout above the webhook's timeout, as the gateway demands.
 */
export const RETRY = {
  maxAttempts: 100,
  backoffBaseMs: 500,
  backoffMaxMs: 4_000,
  claimTimeoutMs: 10_000,
};
/** The webhook endpoint's name, as the Pipelines refer to it. */
export const ENDPOINT = 'deploy';

/** The configuration of replica `identity` (also its promotion instance id). */
export function replicaConfig(shared: SharedSettings, identity: string): object {
  return {
    server: { host: '127.0.0.1', port: 0 },
    // The test sends tens of events a second under one cluster key: not what is measured here.
    rateLimit: { max: 1_000_000 },
    management: { name: 'management' },
    clusters: ENVIRONMENTS.map((name) => ({
      name,
      gitopsCluster: { namespace: FLUX_NAMESPACE, name },
      hmacKeys: [{ value: shared.hmacKeys[name] }],
    })),
    jwt: {
      issuer: shared.reader.issuer,
      audience: shared.reader.audience,
      algorithms: ['EdDSA'],
      publicKeys: [{ value: shared.reader.publicKeyPem }],
    },
    resync: { intervalMs: RESYNC_MS },
    leaderElection: { enabled: true, identity, ...LEASE },
    promotion: {
      instanceId: identity,
      retry: RETRY,
      // No Pipeline here promotes by pull request; the smallest bounds let the claim timeout
      // stay short (the gateway refuses one below a pull-request attempt's longest time).
      pullRequest: { gitTimeoutMs: 1_000, apiTimeoutMs: 100 },
      webhooks: {
        [ENDPOINT]: {
          url: shared.receiverUrl,
          secret: { value: shared.webhookSecret },
          timeoutMs: 5_000,
        },
      },
    },
    approvals: {
      approvers: [
        { name: shared.approver.name, publicKeys: [{ value: shared.approver.publicKeyPem }] },
      ],
    },
    // PromotionAlerts: failed deliveries retried within the run, not minutes later.
    notifications: { retryBaseMs: 500, retryMaxMs: 2_000, allowedUrlPrefixes: [shared.alertUrl] },
    logLevel: shared.logLevel,
  };
}

/** Writes replica `identity`'s configuration into `dir`; returns its path. */
export function writeReplicaConfig(dir: string, shared: SharedSettings, identity: string): string {
  const file = join(dir, `${identity}.config.json`);
  writeFileSync(file, JSON.stringify(replicaConfig(shared, identity), null, 2), { mode: 0o600 });
  return file;
}
