/**
 * TypeScript view of `pipelines.weave.works/v1alpha1` Pipeline, as in schemas/pipeline.schema.json.
 * Fields marked "ours" are optional additions; existing Pipelines never need them.
 */

/** Reference to a GitopsCluster holding a remote cluster's kubeconfig. */
export interface ClusterRef {
  apiVersion?: string;
  kind: 'GitopsCluster';
  name: string;
  namespace?: string;
}

/** One place an environment deploys to: a namespace, on the management cluster or a clusterRef. */
export interface PipelineTarget {
  namespace: string;
  clusterRef?: ClusterRef;
}

/** How a promotion is carried out. `webhook` is ours: it names an endpoint from the gateway config. */
export interface PromotionStrategy {
  notification?: Record<string, never>;
  'pull-request'?: {
    type: 'github' | 'gitlab' | 'bitbucket-server';
    url: string;
    baseBranch: string;
    secretRef: { name: string };
  };
  webhook?: { endpoint: string };
  secretRef?: { name: string };
}

/** Promotion settings, pipeline-wide or per environment. */
export interface PromotionSpec {
  manual?: boolean;
  strategy: PromotionStrategy;
}

/** An ordered stage of the pipeline. */
export interface PipelineEnvironment {
  name: string;
  targets: PipelineTarget[];
  promotion?: PromotionSpec;
}

/** The application the pipeline moves (HelmRelease or Kustomization), by name in each target. */
export interface AppRef {
  apiVersion: string;
  kind: string;
  name: string;
}

/** Pipeline .spec. */
export interface PipelineSpec {
  appRef: AppRef;
  environments: PipelineEnvironment[];
  promotion?: PromotionSpec;
}

/** Phases of a promotion record (ours); weave's record has only `succeeded`. */
export type PromotionPhase = 'Claimed' | 'Succeeded' | 'Failed';

/** status.environments[env].promotion: the claim and outcome of the latest promotion attempt. */
export interface PromotionRecord {
  revision: string;
  lastAttemptedTime: string;
  succeeded: boolean;
  pullRequest?: { state: string; url: string };
  /** ours: 1 for the first attempt at this revision. */
  attempt?: number;
  /** ours */
  phase?: PromotionPhase;
  /** ours: who claimed it (gateway instance id), for diagnosing a crash between claim and outcome. */
  claimedBy?: string;
  /** ours: the outcome's message, secret-free. */
  message?: string;
  /** ours: false on a Failed attempt that retrying cannot fix; no further attempt at this revision. */
  retryable?: boolean;
}

/** status.environments[env].targets[i]. */
export interface TargetStatusRecord {
  clusterAppRef: AppRef & { clusterRef?: ClusterRef };
  ready: boolean;
  revision?: string;
  error?: string;
}

/** status.environments[env]. */
export interface EnvironmentStatus {
  targets?: TargetStatusRecord[];
  promotion?: PromotionRecord;
  waitingApproval?: { revision: string };
}

/** A metav1.Condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** Pipeline .status. */
export interface PipelineStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  environments?: Record<string, EnvironmentStatus>;
}

/** A whole Pipeline object. */
export interface Pipeline {
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
  status?: PipelineStatus;
}
