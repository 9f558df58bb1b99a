/**
 * The release-train gate inputs of a Pipeline, for every evaluation on this replica: the train
 * it belongs to (TrainBook), the train's current release per gated environment (as the train's
 * status records it), and whether the members it dependsOn run their release revisions healthy
 * there (this replica's reads). Also what the train reconciler asks of the members.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { TargetStatus } from '../evaluate/decisions.js';
import type { TrainGateInput, TrainReleaseInput } from '../evaluate/train-input.js';
import { sharedPullRequestMembers } from '../evaluate/train-gate.js';
import { summarise } from '../evaluate/target-states.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { pipelineId, type PipelineId } from '../pipeline/id.js';
import type { TrainBook } from '../trains/train-book.js';
import { memberRef, resolveTrain, type MemberCandidate } from '../trains/train-members.js';
import { trainName, type PromotionTrain, type TrainRelease } from '../trains/train-resource.js';
import type { VerifiedTargets } from '../verify/verified-targets.js';
import { statusesFor } from './evaluation-input.js';

/** What the evaluation input asks: the train gates of a Pipeline, by environment. */
export interface TrainGateSource {
  gatesFor(pipeline: Pipeline): Record<string, TrainGateInput> | undefined;
}

/** What the gates are read from. */
export interface TrainGatesDeps {
  book: TrainBook;
  catalog: Pick<PipelineCatalog, 'all' | 'get' | 'targetsOf'>;
  verified: Pick<VerifiedTargets, 'status'>;
}

/** The gates and the members' verified state, from the book, the catalog and the reads. */
export class TrainGates implements TrainGateSource {
  constructor(private readonly deps: TrainGatesDeps) {}

  /** The gate per environment the Pipeline's train gates; undefined when it is in no train. */
  gatesFor(pipeline: Pipeline): Record<string, TrainGateInput> | undefined {
    const { namespace, name } = pipeline.metadata;
    const found = this.deps.book.membershipOf(namespace, name, (ns) => this.candidates(ns));
    if (found === undefined) return undefined;
    const own = found.train.metadata.namespace;
    const member = found.member.name;
    const out: Record<string, TrainGateInput> = {};
    for (const env of found.environments) {
      const stored = found.train.status?.environments?.find((e) => e.name === env)?.release;
      out[env] = {
        train: trainName(found.train),
        member,
        ...(stored === undefined ? {} : { release: releaseInput(stored) }),
        ...(found.train.spec.rollbackOnFailure === true ? { rollbackOnFailure: true } : {}),
        ...sharedIfAny(this.sharedPullRequest(found.train, pipeline, member, env)),
        dependsOn: (found.member.dependsOn ?? []).map((d) => {
          const ref = memberRef(own, d);
          const running = this.runningIn(ref.namespace, ref.name, env);
          return running === undefined ? { name: d } : { name: d, running };
        }),
      };
    }
    return out;
  }

  /**
   * The members sharing this one's pull request into `env` (sharedPullRequestMembers); `member`
   * is the Pipeline as the train names it.
   */
  private sharedPullRequest(
    train: PromotionTrain,
    pipeline: Pipeline,
    member: string,
    env: string,
  ): string[] {
    if (repositoryKey(pipeline, env) === undefined) return [];
    const own = train.metadata.namespace;
    const members = resolveTrain(train, (ns) => this.candidates(ns)).members.map((m) => {
      const ref = memberRef(own, m.name);
      const found = m.name === member ? pipeline : this.pipeline(ref.namespace, ref.name)?.pipeline;
      const repository = found === undefined ? undefined : repositoryKey(found, env);
      return { ...m, ...(repository === undefined ? {} : { repository }) };
    });
    return sharedPullRequestMembers(member, members);
  }

  /** The Pipelines of `namespace` as a train resolves its members against them. */
  candidates(namespace: string): MemberCandidate[] {
    return this.deps.catalog
      .all()
      .filter((p) => p.metadata.namespace === namespace)
      .map((p) => ({
        name: p.metadata.name,
        ...(p.metadata.labels === undefined ? {} : { labels: p.metadata.labels }),
        environments: p.spec.environments.map((e) => e.name),
      }));
  }

  /** This replica's reads of a member's targets in `env`; undefined when it is not loaded. */
  targetsIn(namespace: string, name: string, env: string): TargetStatus[] | undefined {
    return this.statusesOf(namespace, name)?.[env];
  }

  /** This replica's reads of every target of a member, by environment (statusesFor). */
  statusesOf(namespace: string, name: string): Record<string, TargetStatus[]> | undefined {
    const id = pipelineId({ namespace, name });
    const pipeline = this.deps.catalog.get(id);
    if (pipeline === undefined) return undefined;
    return statusesFor(this.deps.verified, pipeline, this.deps.catalog.targetsOf(id));
  }

  /** The revision every target of the member in `env` runs healthy, if one. */
  runningIn(namespace: string, name: string, env: string): string | undefined {
    const summary = summarise(this.targetsIn(namespace, name, env) ?? []);
    return summary.kind === 'Ready' ? summary.revision : undefined;
  }

  /** The loaded Pipeline of a member. */
  pipeline(namespace: string, name: string): { id: PipelineId; pipeline: Pipeline } | undefined {
    const id = pipelineId({ namespace, name });
    const pipeline = this.deps.catalog.get(id);
    return pipeline === undefined ? undefined : { id, pipeline };
  }
}

/** The release as the gate reads it, from the train's stored status. */
function releaseInput(stored: TrainRelease): TrainReleaseInput {
  const startedAt = Date.parse(stored.startedAt);
  return {
    ...{ digest: stored.digest, members: stored.members, state: stored.state },
    ...(Number.isNaN(startedAt) ? {} : { startedAt }),
  };
}

function sharedIfAny(names: string[]): { sharedPullRequest?: string[] } {
  return names.length === 0 ? {} : { sharedPullRequest: names };
}

/**
 * Where a Pipeline's promotions into `env` are proposed, when by pull request alone: forge,
 * repository URL, base branch and Secret, as one key; undefined for any other strategy.
 */
function repositoryKey(pipeline: Pipeline, env: string): string | undefined {
  const own = pipeline.spec.environments.find((e) => e.name === env)?.promotion?.strategy;
  const strategy = own ?? pipeline.spec.promotion?.strategy;
  const pr = strategy?.['pull-request'];
  if (pr === undefined || strategy?.notification !== undefined || strategy?.webhook !== undefined)
    return undefined;
  return JSON.stringify([pr.type, pr.url, pr.baseBranch, pr.secretRef.name]);
}
