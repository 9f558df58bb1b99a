/** Small builders for evaluator inputs, shared by the table and property tests. */
import { expect } from 'vitest';
import { evaluate } from '../../src/evaluate/evaluate.js';
import type {
  EnvironmentDecision,
  GateView,
  EvaluationInput,
  RetryPolicy,
  TargetStatus,
} from '../../src/evaluate/decisions.js';
import type {
  PipelineSpec,
  PromotionRecord,
  PromotionSpec,
  AuthorizationRecord,
} from '../../src/pipeline/pipeline-resource.js';

/** A fixed "now": 2025-01-01T12:00:00Z. */
export const NOW = Date.parse('2025-01-01T12:00:00Z');
export const MINUTE = 60_000;

/** maxAttempts 3, backoff 1 min doubling to 10 min, claims expire after 15 min. */
export const POLICY: RetryPolicy = {
  maxAttempts: 3,
  backoffBaseMs: MINUTE,
  backoffMaxMs: 10 * MINUTE,
  claimTimeoutMs: 15 * MINUTE,
};

/** RFC 3339 text for NOW + offsetMs. */
export function at(offsetMs: number): string {
  return new Date(NOW + offsetMs).toISOString();
}

/** A target status; cluster defaults to the management cluster (''). */
export function target(
  health: TargetStatus['health'],
  revision?: string,
  reason?: string,
  cluster = '',
): TargetStatus {
  const status: TargetStatus = {
    location: { cluster, namespace: 'apps' },
    health,
    reason:
      reason ??
      (health === 'Healthy' ? 'Ready' : health === 'Unknown' ? 'Unavailable' : 'UpgradeFailed'),
    message: `${health} target`,
  };
  if (revision !== undefined) status.revision = revision;
  return status;
}

export const healthy = (revision: string, cluster?: string): TargetStatus =>
  target('Healthy', revision, undefined, cluster);
export const unhealthy = (revision?: string, reason?: string): TargetStatus =>
  target('Unhealthy', revision, reason);
export const unknown = (reason = 'Unavailable'): TargetStatus =>
  target('Unknown', undefined, reason);

/** Environment description: name -> statuses (the spec gets one target per status unless `specTargets`). */
export interface EnvSketch {
  name: string;
  statuses: TargetStatus[] | undefined;
  specTargets?: number;
  promotion?: PromotionSpec;
}

/** A pipeline spec plus statuses; records, authorizations, floors, policy and now are overridable. */
export function build(
  envs: EnvSketch[],
  extra: Partial<Omit<EvaluationInput, 'spec' | 'targets'>> & { promotion?: PromotionSpec } = {},
): EvaluationInput {
  const spec: PipelineSpec = {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: envs.map((e) => {
      const n = e.specTargets ?? e.statuses?.length ?? 0;
      const targets = Array.from({ length: n }, (_, k) => ({
        namespace: 'apps',
        clusterRef: { kind: 'GitopsCluster' as const, name: `${e.name}-${k}` },
      }));
      return e.promotion === undefined
        ? { name: e.name, targets }
        : { name: e.name, targets, promotion: e.promotion };
    }),
  };
  if (extra.promotion !== undefined) spec.promotion = extra.promotion;
  const targets: Record<string, TargetStatus[]> = {};
  for (const e of envs) if (e.statuses !== undefined) targets[e.name] = e.statuses;
  const input: EvaluationInput = {
    spec,
    targets,
    records: extra.records ?? {},
    policy: extra.policy ?? POLICY,
    now: extra.now ?? NOW,
  };
  if (extra.authorizations !== undefined) input.authorizations = extra.authorizations;
  if (extra.floors !== undefined) input.floors = extra.floors;
  if (extra.firstVerified !== undefined) input.firstVerified = extra.firstVerified;
  if (extra.histories !== undefined) input.histories = extra.histories;
  if (extra.holds !== undefined) input.holds = extra.holds;
  if (extra.halts !== undefined) input.halts = extra.halts;
  if (extra.approvers !== undefined) input.approvers = extra.approvers;
  if (extra.previewDigests !== undefined) input.previewDigests = extra.previewDigests;
  if (extra.staleApprovals !== undefined) input.staleApprovals = extra.staleApprovals;
  if (extra.trains !== undefined) input.trains = extra.trains;
  return input;
}

/** One recorded authorization of `revision` (an approval by alice, a person, by default). */
export function authorization(
  revision: string,
  overrides: Partial<AuthorizationRecord> = {},
): AuthorizationRecord {
  return {
    principal: 'alice',
    kind: 'human',
    decision: 'approve',
    revision,
    time: '2026-11-21T10:00:00Z',
    ...overrides,
  };
}

/** dev -> prod, dev healthy at `devRev` on two targets, prod on two targets at `prodRev`. */
export function devProd(
  devRev: string,
  prodRev: string,
  extra: Parameters<typeof build>[1] = {},
): EvaluationInput {
  return build(
    [
      { name: 'dev', statuses: [healthy(devRev), healthy(devRev)] },
      { name: 'prod', statuses: [healthy(prodRev), healthy(prodRev)] },
    ],
    extra,
  );
}

/** A promotion record for prod. */
export function record(fields: Partial<PromotionRecord> & { revision: string }): PromotionRecord {
  return { lastAttemptedTime: at(0), succeeded: false, ...fields };
}

/** Recursively freeze a value so any mutation throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The decision for one environment (throws when there is none). */
export function decisionFor(input: EvaluationInput, env: string): EnvironmentDecision {
  const found = evaluate(input).decisions.find((d) => d.environment === env);
  if (found === undefined) throw new Error(`no decision for ${env}`);
  return found;
}

/** One row of a decision table: the decision `env` gets from `input` has the fields in `want`. */
export interface Case {
  name: string;
  input: EvaluationInput;
  env: string;
  /** Fields the decision must have; `gate` is matched partially. */
  want: Partial<Omit<EnvironmentDecision, 'gate'>> & { gate?: Partial<GateView> };
}

/** Assert a row. Only the keys a case names are compared; `key: undefined` asserts absence. */
export function expectCase({ input, env, want }: Case): void {
  const got = decisionFor(input, env);
  const picked = Object.fromEntries(
    Object.keys(want).map((k) => [k, got[k as keyof EnvironmentDecision]]),
  );
  expect(picked).toMatchObject(want);
}
