/**
 * TypeScript view of `pipelines.weave.works/v1alpha1` Pipeline, as in schemas/pipeline.schema.json.
 * Fields marked "ours" are optional additions; existing Pipelines never need them.
 */
import type { AuthorizationRecord } from './authorization-record.js';
import type { HaltRecord } from './halt-resource.js';
import type { OutboxEvent } from './outbox-event.js';
import type { PromotionHistoryEntry, PromotionRecord } from './promotion-record.js';

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

/** weave's pull-request strategy: the forge, the repository, its base branch and token Secret. */
export interface PullRequestStrategySpec {
  type: 'github' | 'gitlab' | 'bitbucket-server';
  url: string;
  baseBranch: string;
  secretRef: { name: string };
}

/** How a promotion is carried out. `webhook` is ours: it names an endpoint from the gateway config. */
export interface StrategySpec {
  notification?: Record<string, never>;
  'pull-request'?: PullRequestStrategySpec;
  webhook?: { endpoint: string };
  secretRef?: { name: string };
}

/**
 * ours, per environment: who must authorize a promotion and how many. Principals are approver
 * names from the gateway configuration, `group:<name>` and CI principals `ci:<policy-name>`.
 */
export interface ApprovalSpec {
  /** Distinct allowed principals that must approve; default 1. */
  minApprovals?: number;
  /** Who may approve; absent or empty = any configured approver (never a CI principal). */
  approvers?: string[];
}

/**
 * ours: an HTTP endpoint that must answer as expected before a revision is taken. `{{revision}}`
 * in `url` is replaced by the revision (URL-encoded); the gateway's allow-list must admit the URL.
 */
export interface HttpCheckSpec {
  url: string;
  /**
   * What counts as passed: the status (default any 2xx) and, optionally, one JSON field's value
   * as text (a string as is; a number, boolean or null as its JSON: `200`, `true`, `null`).
   */
  expect?: { status?: number; json?: { path: string; equals: string } };
  timeoutSeconds?: number;
  cacheSeconds?: number;
  /** A Secret in the Pipeline's namespace: `token` (sent as a Bearer token) and/or `headers` (YAML). */
  secretRef?: { name: string };
}

/** ours: the forge's commit statuses and check runs of the revision's commit. */
export interface CommitStatusCheckSpec {
  /** Status contexts / check-run names that must succeed; absent = every one reported. */
  contexts?: string[];
  /** The commit as a ref template (`v{{revision}}`); default: the sha of a Flux Git revision. */
  ref?: string;
  /** Default: the environment's pull-request strategy repository and Secret. */
  repository?: { type: 'github' | 'gitlab'; url: string; secretRef: { name: string } };
  timeoutSeconds?: number;
  cacheSeconds?: number;
}

/** ours: one external check; exactly one of `http` and `commitStatus`. */
export interface CheckSpec {
  name: string;
  http?: HttpCheckSpec;
  commitStatus?: CommitStatusCheckSpec;
}

/**
 * ours: how long the upstream environment must have run a revision healthy, on every target and
 * without interruption, before this environment takes it (docs/policy.md, "Soak time").
 */
export interface SoakSpec {
  /** A Go duration as Flux writes them: `30s`, `30m`, `1h30m`, `24h`; `0s` turns it off. */
  duration: string;
}

/**
 * ours: a promotion window (docs/policy.md, "Promotion windows"): occurrences of an RFC 5545
 * recurrence rule or a cron expression in an IANA time zone, each lasting `duration`.
 * Automatic promotions run only inside Allow windows (where any apply) and never inside Deny
 * windows. Exactly one of `rrule` and `cron`.
 */
export interface PromotionWindowSpec {
  /** Named in messages: a DNS label. */
  name: string;
  type: 'Allow' | 'Deny';
  /** `DTSTART[;TZID=<timeZone>]:YYYYMMDDTHHMMSS` and `RRULE:...` on two lines. */
  rrule?: string;
  /** Five fields, or six with seconds first; evaluated on the wall clock of `timeZone`. */
  cron?: string;
  /** IANA time zone, e.g. `Europe/Berlin`. */
  timeZone: string;
  /** `8h`, `90m` (exact), or RFC 5545 `PT8H`, `P2DT14H`, `P2W` (days and weeks on the calendar). */
  duration: string;
  /** Whether a revision an approval gate has approved may pass while this window holds. */
  authorizationsPassFreeze?: boolean;
}

/**
 * ours: what the gateway does when an environment's targets run another revision than its last
 * successful promotion (docs/policy.md, "Drift"). `Warn` reports it only; `Correct` promotes the
 * recorded revision again, as a new attempt; `CorrectIfNotArrived` (the default) does so only
 * when the environment never ran it within `rolloutTimeout` of the promotion (a lost or
 * overtaken delivery), and reports a revision it ran and then left (a person's or another
 * tool's change, which is not fought).
 */
export interface DriftSpec {
  mode?: 'Warn' | 'Correct' | 'CorrectIfNotArrived';
  /** A Go duration as Flux writes them (`10m`): how long a promoted revision may take to arrive. */
  rolloutTimeout?: string;
}

/** Promotion settings, pipeline-wide or per environment. */
export interface PromotionSpec {
  manual?: boolean;
  strategy: StrategySpec;
  /** ours, per environment only: the approval gate. */
  approval?: ApprovalSpec;
  /** ours, per environment only: external checks every revision must pass before it is taken. */
  checks?: CheckSpec[];
  /** ours: the soak; per environment, or pipeline-wide for every environment without its own. */
  soak?: SoakSpec;
  /** ours: promotion windows; pipeline-wide ones apply to every environment, with its own. */
  windows?: PromotionWindowSpec[];
  /** ours, per environment only: a break-glass quorum stricter than the operator's (policy.md). */
  breakGlass?: { minApprovals?: number; approvers?: string[] };
  /** ours: drift handling; per environment, or pipeline-wide for every environment without its own. */
  drift?: DriftSpec;
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

/** status.environments[env].targets[i]. */
export interface TargetStatusRecord {
  clusterAppRef: AppRef & { clusterRef?: ClusterRef };
  ready: boolean;
  revision?: string;
  error?: string;
  /**
   * ours: when the gateway read the state this record shows (RFC 3339 with milliseconds). Reads
   * that find the same state leave it; a replica never replaces it with an older observation.
   */
  observedTime?: string;
  /**
   * ours: true while this state was found by a resync pass with no Flux event about the object
   * (events missing, see the EventsMissing condition); removed once an event about it arrives.
   */
  unannounced?: boolean;
}

/** status.environments[env].promotion and .history[i] (src/pipeline/promotion-record.ts). */
export type {
  PromotionHistoryEntry,
  PromotionPhase,
  PromotionRecord,
  PromotionResolution,
} from './promotion-record.js';

/** ours: status.environments[env].approvals[i] (src/pipeline/authorization-record.ts). */
export type { AuthorizationKind, AuthorizationRecord } from './authorization-record.js';

/**
 * ours: status.environments[env].healthySince, kept while a downstream environment soaks: since
 * when every target of this environment has run `revision` Healthy, as the gateway's reads saw
 * it (RFC 3339 with milliseconds). Removed when a read finds the environment otherwise.
 */
export interface HealthySince {
  revision: string;
  time: string;
}

/** status.environments[env]. */
export interface EnvironmentStatus {
  targets?: TargetStatusRecord[];
  promotion?: PromotionRecord;
  /** ours: `since` is when the gateway first found it waiting (RFC 3339, milliseconds). */
  waitingApproval?: { revision: string; since?: string };
  /** ours: the latest promotions of this environment, oldest first (at most MAX_HISTORY). */
  history?: PromotionHistoryEntry[];
  /** ours: authorizations of the current and previous revision, and any not yet expired. */
  approvals?: AuthorizationRecord[];
  /** ours: since when it has run its revision healthy, for the soak of the next environment. */
  healthySince?: HealthySince;
  /** ours: when each revision was first verified here, oldest first (status/verified-history.ts). */
  verified?: { revision: string; time: string }[];
  /**
   * ours: while the targets run another revision than the last successful promotion: which one
   * was promoted, what runs, and since when the gateway finds it so (docs/policy.md, "Drift").
   */
  drift?: DriftRecord;
}

/** ours: status.environments[env].drift; see EnvironmentStatus.drift. */
export interface DriftRecord {
  /** The revision the last successful promotion delivered. */
  promoted: string;
  /** The revisions the targets run (one per distinct revision, in target order). */
  running: string[];
  /** Whether the environment had run `promoted` (then left it) or never did. */
  arrived: boolean;
  /** When the gateway first found the environment so (RFC 3339 with milliseconds). */
  since: string;
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
  /** ours: the stop-the-line halts in force (docs/policy.md, "Stop-the-line halts"). */
  halts?: HaltRecord[];
  /** ours: the notification events owed to subscribers, oldest first (pipeline/outbox-event.ts). */
  outbox?: OutboxEvent[];
}

/** ours: status.halts[i], one stop-the-line halt (src/pipeline/halt-resource.ts). */
export type { HaltRecord } from './halt-resource.js';

/** A Pipeline without its status: what readers of its metadata and spec alone are given. */
export interface PipelineHead {
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
