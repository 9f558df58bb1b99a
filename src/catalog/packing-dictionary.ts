/**
 * The deflate dictionary packed specs and statuses are compressed against (packed.ts): one
 * status and one spec in the gateway's own vocabulary (field names, Flux kinds and API
 * versions, condition types, reasons and message wording, timestamp shapes, promotion
 * settings), so that even a single Pipeline's spec or status compresses well.
 *
 * Why a fixed dictionary: a status is a few KB of JSON that repeats the same field names and
 * phrases in every Pipeline; deflate alone must spell each out once per status (about 720
 * bytes for six targets at fleet scale), against this dictionary about 220; a spec of six
 * targets, 230 bytes alone, is about 65. Changing it makes no stored data unreadable: packed
 * values live only in memory, in the process that packed them.
 */
import { Buffer } from 'node:buffer';

const TIME = '2026-01-01T00:00:00Z';
const TIME_MS = '2026-01-01T00:00:00.000Z';

function targetRecord(kind: 'HelmRelease' | 'Kustomization', cluster: string) {
  const apiVersion =
    kind === 'HelmRelease' ? 'helm.toolkit.fluxcd.io/v2' : 'kustomize.toolkit.fluxcd.io/v1';
  return {
    clusterAppRef: {
      apiVersion,
      kind,
      name: 'app',
      clusterRef: { kind: 'GitopsCluster', name: cluster, namespace: 'flux-system' },
    },
    ready: true,
    revision: '1.0.0',
    observedTime: TIME_MS,
    unannounced: true,
  };
}

function condition(type: string, status: string, reason: string, message: string) {
  return { type, status, observedGeneration: 1, lastTransitionTime: TIME, reason, message };
}

const STATUS_SAMPLE = {
  observedGeneration: 1,
  conditions: [
    condition('Ready', 'True', 'AllTargetsReady', 'All 2 targets are ready'),
    condition('PromotionPending', 'False', 'NoPromotionPending', 'No promotion is pending'),
    condition(
      'EventsMissing',
      'True',
      'UnannouncedChanges',
      'No Flux event announced these changes; the resync found them: dev: HelmRelease app/app ' +
        "(1.0.0) in cluster a. Check the Alert covering each namespace, the Provider's key and " +
        'its address',
    ),
  ],
  environments: {
    dev: {
      targets: [targetRecord('HelmRelease', 'a'), targetRecord('HelmRelease', 'b')],
      verified: [{ revision: '1.0.0', time: TIME_MS }],
    },
    staging: {
      promotion: {
        revision: '1.0.0',
        lastAttemptedTime: TIME,
        attempt: 1,
        claimedBy: 'gateway',
        phase: 'Succeeded',
        succeeded: true,
        message: 'Recorded event: Promote pipeline ns/app to staging with version 1.0.0',
        deadlineTime: TIME_MS,
        upstreamVerifiedTime: TIME_MS,
      },
      history: [
        {
          revision: '1.0.0',
          startedTime: TIME_MS,
          attempts: 1,
          succeededTime: TIME_MS,
          upstreamVerifiedTime: TIME_MS,
        },
      ],
      targets: [{ ...targetRecord('Kustomization', 'a'), ready: false, error: 'failed' }],
      healthySince: { revision: '1.0.0', time: TIME_MS },
    },
    prod: {
      waitingApproval: { revision: '1.0.0', since: TIME_MS },
      approvals: [
        {
          principal: 'ci:policy',
          kind: 'human',
          decision: 'approve',
          revision: '1.0.0',
          time: TIME,
          expiresAt: TIME,
          jti: 'id',
          statement: 'eyJhbGciOiJFZERTQSIsInR5cCI6InByb21vdGlvbi1hcHByb3ZhbCtqd3QifQ',
        },
      ],
    },
  },
};

function specTarget(namespace: string, cluster: string) {
  return {
    namespace,
    clusterRef: { kind: 'GitopsCluster', name: cluster, namespace: 'flux-system' },
  };
}

const SPEC_SAMPLE = {
  appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
  promotion: {
    strategy: { notification: {} },
    checks: [
      { name: 'check', http: { url: 'https://', expect: { status: 200 }, timeoutSeconds: 10 } },
      { name: 'ci', commitStatus: { contexts: ['ci'], timeoutSeconds: 10, cacheSeconds: 60 } },
    ],
    soak: { duration: '10m' },
  },
  environments: [
    { name: 'dev', targets: [specTarget('app-dev', 'a'), specTarget('dev', 'b')] },
    { name: 'staging', targets: [specTarget('app-staging', 'a')] },
    {
      name: 'prod',
      targets: [specTarget('app-prod', 'a')],
      promotion: {
        manual: true,
        strategy: {
          'pull-request': { type: 'github', url: 'https://', baseBranch: 'main' },
          secretRef: { name: 'token' },
        },
        approval: { minApprovals: 1, approvers: ['group:'] },
        windows: [
          { name: 'window', type: 'Deny', cron: '0 0 * * *', timeZone: 'UTC', duration: '1h' },
        ],
      },
    },
  ],
};

/** The dictionary's bytes: UTF-8 JSON of the sample status, then of the sample spec. */
export const PACKING_DICTIONARY: Buffer = Buffer.from(
  JSON.stringify(STATUS_SAMPLE) + JSON.stringify(SPEC_SAMPLE),
);
