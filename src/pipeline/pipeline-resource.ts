/**
 * TypeScript view of `pipelines.weave.works/v1alpha1` Pipeline: the types of the declarations in
 * src/shapes (which schemas/pipeline.schema.json and the CRD are generated from), narrowed only
 * where the API server guarantees more than the schema says (metadata, apiVersion, kind).
 * Fields the descriptions mark "a promotion-gateway addition" are optional; existing Pipelines
 * never need them.
 */
import type { Static } from 'typebox';
import type {
  CheckSpecSchema,
  CommitStatusCheckSpecSchema,
  HttpCheckSpecSchema,
} from '../shapes/pipeline-checks.js';
import type {
  ApprovalSpecSchema,
  DriftSpecSchema,
  EnvironmentPromotionSpecSchema,
  PromotionWindowSpecSchema,
  PullRequestStrategySpecSchema,
  SoakSpecSchema,
  StrategySpecSchema,
} from '../shapes/pipeline-promotion.js';
import type {
  AppRefSchema,
  ClusterRefSchema,
  PipelineEnvironmentSchema,
  PipelineSpecSchema,
  PipelineTargetSchema,
} from '../shapes/pipeline-spec.js';
import type {
  ConditionSchema,
  DriftRecordSchema,
  EnvironmentStatusSchema,
  HealthySinceSchema,
  PipelineStatusSchema,
  TargetStatusRecordSchema,
} from '../shapes/pipeline-status.js';
import type { PipelineSchema } from '../shapes/pipeline.js';

/** Reference to a GitopsCluster holding a remote cluster's kubeconfig. */
export type ClusterRef = Static<typeof ClusterRefSchema>;

/** One place an environment deploys to: a namespace, on the management cluster or a clusterRef. */
export type PipelineTarget = Static<typeof PipelineTargetSchema>;

/** weave's pull-request strategy: the forge, the repository, its base branch and token Secret. */
export type PullRequestStrategySpec = Static<typeof PullRequestStrategySpecSchema>;

/** How a promotion is carried out. `webhook` is ours: it names an endpoint from the gateway config. */
export type StrategySpec = Static<typeof StrategySpecSchema>;

/** ours, per environment: who must authorize a promotion and how many. */
export type ApprovalSpec = Static<typeof ApprovalSpecSchema>;

/** ours: an HTTP endpoint that must answer as expected before a revision is taken. */
export type HttpCheckSpec = Static<typeof HttpCheckSpecSchema>;

/** ours: the forge's commit statuses and check runs of the revision's commit. */
export type CommitStatusCheckSpec = Static<typeof CommitStatusCheckSpecSchema>;

/** ours: one external check; exactly one of `http` and `commitStatus`. */
export type CheckSpec = Static<typeof CheckSpecSchema>;

/** ours: how long the upstream environment must have run a revision healthy (policy.md, "Soak time"). */
export type SoakSpec = Static<typeof SoakSpecSchema>;

/** ours: a promotion window (docs/policy.md, "Promotion windows"); exactly one of `rrule`, `cron`. */
export type PromotionWindowSpec = Static<typeof PromotionWindowSpecSchema>;

/** ours: what the gateway does when an environment drifts (docs/policy.md, "Drift"). */
export type DriftSpec = Static<typeof DriftSpecSchema>;

/**
 * Promotion settings per environment; the pipeline-wide settings are a subset of these (no
 * approval, break-glass or checks), so one type reads both.
 */
export type PromotionSpec = Static<typeof EnvironmentPromotionSpecSchema>;

/** An ordered stage of the pipeline. */
export type PipelineEnvironment = Static<typeof PipelineEnvironmentSchema>;

/** The application the pipeline moves (HelmRelease or Kustomization), by name in each target. */
export type AppRef = Static<typeof AppRefSchema>;

/** Pipeline .spec. */
export type PipelineSpec = Static<typeof PipelineSpecSchema>;

/** status.environments[env].targets[i]. */
export type TargetStatusRecord = Static<typeof TargetStatusRecordSchema>;

/** status.environments[env].promotion and .history[i] (src/pipeline/promotion-record.ts). */
export type {
  PromotionHistoryEntry,
  PromotionPhase,
  PromotionRecord,
  PromotionResolution,
} from './promotion-record.js';

/** ours: status.environments[env].holds[i] and the rollback mark (src/pipeline/promotion-record.ts). */
export type { RevisionHold, RollbackMark, ShadowHoldRecord } from './promotion-record.js';

/** ours: status.environments[env].approvals[i] (src/pipeline/authorization-record.ts). */
export type { AuthorizationKind, AuthorizationRecord } from './authorization-record.js';

/** ours: since when every target of an environment has run `revision` Healthy (for the soak). */
export type HealthySince = Static<typeof HealthySinceSchema>;

/** status.environments[env]. */
export type EnvironmentStatus = Static<typeof EnvironmentStatusSchema>;

/** ours: status.environments[env].drift: what was promoted, what runs, since when. */
export type DriftRecord = Static<typeof DriftRecordSchema>;

/** A metav1.Condition. */
export type Condition = Static<typeof ConditionSchema>;

/** Pipeline .status. */
export type PipelineStatus = Static<typeof PipelineStatusSchema>;

/** ours: status.halts[i], one stop-the-line halt (src/pipeline/halt-resource.ts). */
export type { HaltRecord } from './halt-resource.js';

/**
 * A Pipeline without its status: what readers of its metadata and spec alone are given. The API
 * server always sets apiVersion, kind, metadata.name and namespace, which the schema leaves open.
 */
export interface PipelineHead extends Omit<Static<typeof PipelineSchema>, 'status'> {
  apiVersion: 'pipelines.weave.works/v1alpha1';
  kind: 'Pipeline';
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    [field: string]: unknown;
  };
  spec: PipelineSpec;
}

/** A whole Pipeline object. */
export interface Pipeline extends PipelineHead {
  status?: PipelineStatus;
}
