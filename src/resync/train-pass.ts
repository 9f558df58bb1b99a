/**
 * The train reconciler: on the replica holding the resync Lease, each pass lists the
 * PromotionTrains and, for each, reads where its members stand (this replica's verified reads and
 * one evaluation per member, the train gate opened as a probe), records in the train's status
 * the combination seen verified together upstream and the next release per gated environment
 * (trains/train-status.ts), then re-checks the members so that they act on it. Level-triggered:
 * everything it decides comes from the stored status and current reads, so a restart or a new
 * leader replays from the recorded release; each member's promotion is still claimed once in its
 * own Pipeline status.
 */
import type { TrainGates } from '../evaluation/train-gates.js';
import type { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import type { Combination } from '../evaluate/train-combinations.js';
import { verifiedTogether } from '../evaluate/train-combinations.js';
import type { MemberStand } from '../evaluate/train-release.js';
import { recordState } from '../evaluate/retry.js';
import type { TargetStatus } from '../evaluate/decisions.js';
import type { PipelineTrigger } from '../hints/sinks.js';
import type { GatewayLogger } from '../log.js';
import type { EventRecord } from '../kube/ports.js';
import { pipelineId } from '../pipeline/id.js';
import type { TrainBook } from '../trains/train-book.js';
import {
  memberRef,
  resolveTrain,
  upstreamOf,
  type ResolvedTrain,
} from '../trains/train-members.js';
import {
  refusedTrainStatus,
  readyReason,
  type TrainRefusalInput,
} from '../trains/train-refusal.js';
import type { TrainSource } from '../trains/train-source.js';
import { nextTrainStatus, type EnvironmentSnapshot } from '../trains/train-status.js';
import type { TrainStatusWriter } from '../trains/train-status-writer.js';
import { releaseOutcome, withTrainEvents, type TrainOutboxPolicy } from '../notify/train-events.js';
import {
  asUncheckedTrain,
  trainName,
  type PromotionTrain,
  type TrainStatus,
  type UncheckedTrain,
} from '../trains/train-resource.js';

/** What a pass reads, asks and writes through. */
export interface TrainPassDeps {
  source: Pick<TrainSource, 'list'>;
  writer: Pick<TrainStatusWriter, 'apply'>;
  book: TrainBook;
  gates: Pick<TrainGates, 'candidates' | 'targetsIn' | 'statusesOf' | 'runningIn' | 'pipeline'>;
  evaluator: Pick<PipelineEvaluator, 'probe'>;
  pipelines: PipelineTrigger;
  logger: GatewayLogger;
  now: () => number;
  /** Records the train's Events (TrainPromoted, TrainFailed); absent = none recorded. */
  events?: { emitEvent(event: EventRecord): Promise<void> };
  /** Which notification events the train's outbox records (notify/train-events.ts); absent = none. */
  outbox?: Pick<TrainOutboxPolicy, 'horizonMs' | 'wants'>;
}

/** One train reconciler; run() is one pass over every train. */
export class TrainPass {
  constructor(private readonly deps: TrainPassDeps) {}

  /** Lists the trains, refreshes the book, and reconciles each; a failed listing changes nothing. */
  async run(): Promise<void> {
    const listed = await this.deps.source.list();
    if (!listed.ok) {
      this.deps.logger.debug({ reason: listed.reason }, listed.message);
      return;
    }
    this.deps.book.update(listed.trains);
    for (const s of this.deps.book.standings((ns) => this.deps.gates.candidates(ns))) {
      if (s.refusal === undefined) await this.reconcile(s.train, s.resolved);
      else
        await this.refuse(s.train, {
          ...s.refusal,
          members: s.resolved.members.map((m) => m.name),
        });
    }
    for (const { train, reason, problem } of listed.invalid)
      await this.refuse(train, { reason, message: problem });
  }

  /** Reconciles one train: records what was seen and the next release, re-checks its members. */
  async reconcile(
    train: PromotionTrain,
    resolved: ResolvedTrain = resolveTrain(train, (ns) => this.deps.gates.candidates(ns)),
  ): Promise<void> {
    const { namespace } = train.metadata;
    const names = resolved.members.map((m) => m.name);
    const snapshot = {
      ...(train.metadata.generation === undefined ? {} : { generation: train.metadata.generation }),
      members: names,
      missing: resolved.missing,
      suspended: train.spec.suspend === true,
      environments: resolved.environments.map((env) => this.snapshotOf(train, names, env)),
    };
    const before = train.status;
    const written = await this.deps.writer.apply(train, (stored) => {
      const now = this.deps.now();
      const next = nextTrainStatus(stored.status, snapshot, now);
      const told = this.withEvents(train, next, now);
      return { write: told, verdict: told };
    });
    if (written.outcome !== 'Written' && written.outcome !== 'Kept') return;
    const status = written.object.status;
    const stored = asUncheckedTrain(written.object);
    if (stored !== undefined && written.outcome === 'Written')
      this.deps.book.replace({ ...train, ...stored, spec: train.spec });
    if (written.outcome === 'Written' || promoting(status)) {
      for (const name of names)
        this.deps.pipelines.requestPipeline(pipelineId(memberRef(namespace, name)), 'train');
    }
    if (written.outcome !== 'Written') return;
    await this.tell(train, before, status);
    const ready = status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'False' && ready.reason !== readyReason(before))
      await this.warn(train, ready.reason, ready.message);
  }

  /**
   * Records why a train is not used (Ready=False, its reason and message) and, when the reason is
   * new, a Warning Event; its members are re-checked, as the train no longer holds them.
   */
  async refuse(train: UncheckedTrain, refusal: TrainRefusalInput): Promise<void> {
    const { namespace } = train.metadata;
    const generation = train.metadata.generation;
    const input = { ...refusal, ...(generation === undefined ? {} : { generation }) };
    const written = await this.deps.writer.apply(train, (stored) => ({
      write: refusedTrainStatus(stored.status, input, this.deps.now()),
      verdict: readyReason(stored.status),
    }));
    if (written.outcome !== 'Written' || written.verdict === refusal.reason) return;
    for (const name of refusal.members ?? [])
      this.deps.pipelines.requestPipeline(pipelineId(memberRef(namespace, name)), 'train');
    await this.warn(train, refusal.reason, refusal.message);
  }

  /** A Warning Event on the train: why it is not Ready. */
  private async warn(train: UncheckedTrain, reason: string, message: string): Promise<void> {
    this.deps.logger.info({ train: trainName(train), reason }, 'train not ready');
    const event: EventRecord = {
      involvedObject: {
        ...{ apiVersion: train.apiVersion, kind: train.kind },
        ...{ namespace: train.metadata.namespace, name: train.metadata.name },
        ...(train.metadata.uid === undefined ? {} : { uid: train.metadata.uid }),
      },
      ...{ type: 'Warning', reason, message },
    };
    await this.deps.events?.emitEvent(event).catch((err: unknown) => {
      this.deps.logger.warn({ err, train: trainName(train) }, 'train event not recorded');
    });
  }

  /** `next` with the notification events it owes recorded in the train's outbox. */
  private withEvents(train: PromotionTrain, next: TrainStatus, now: number): TrainStatus {
    const { outbox, gates } = this.deps;
    if (outbox === undefined) return next;
    const { namespace } = train.metadata;
    return withTrainEvents(train, next, now, {
      ...outbox,
      outcomeOf: (env, release) =>
        releaseOutcome(
          release,
          (m) => gates.pipeline(namespace, m)?.pipeline.status?.environments?.[env],
          (m) => gates.runningIn(namespace, m, env),
        ),
    });
  }

  /** An Event on the train for each release that ended since `before`: promoted or failed. */
  private async tell(
    train: PromotionTrain,
    before: TrainStatus | undefined,
    after: TrainStatus | undefined,
  ): Promise<void> {
    for (const env of after?.environments ?? []) {
      const release = env.release;
      const was = before?.environments?.find((e) => e.name === env.name)?.release;
      if (release === undefined || was?.state !== 'Promoting' || was.digest !== release.digest)
        continue;
      if (release.state !== 'Succeeded' && release.state !== 'Failed') continue;
      const failed = release.state === 'Failed';
      const event: EventRecord = {
        involvedObject: {
          ...{ apiVersion: train.apiVersion, kind: train.kind },
          ...{ namespace: train.metadata.namespace, name: train.metadata.name },
          ...(train.metadata.uid === undefined ? {} : { uid: train.metadata.uid }),
        },
        type: failed ? 'Warning' : 'Normal',
        reason: failed ? 'TrainFailed' : 'TrainPromoted',
        message: `${env.name}: ${release.message ?? ''} (${release.digest})`,
        annotations: { environment: env.name, digest: release.digest },
      };
      this.deps.logger.info(
        { train: trainName(train), environment: env.name, digest: release.digest },
        failed ? 'train release failed' : 'train release promoted',
      );
      await this.deps.events?.emitEvent(event).catch((err: unknown) => {
        this.deps.logger.warn({ err, train: trainName(train) }, 'train event not recorded');
      });
    }
  }

  private snapshotOf(train: PromotionTrain, names: string[], env: string): EnvironmentSnapshot {
    const { namespace } = train.metadata;
    const upstream: Record<string, TargetStatus[]> = {};
    for (const name of names) {
      const ref = memberRef(namespace, name);
      const environments = this.deps.gates.pipeline(ref.namespace, ref.name)?.pipeline.spec
        .environments;
      const before = upstreamOf(environments?.map((e) => e.name) ?? [], env);
      upstream[name] =
        before === undefined
          ? []
          : (this.deps.gates.targetsIn(ref.namespace, ref.name, before) ?? []);
    }
    const together = verifiedTogether(upstream);
    const running = (n: string) => {
      const ref = memberRef(namespace, n);
      return this.deps.gates.runningIn(ref.namespace, ref.name, env);
    };
    return {
      name: env,
      ...(together === undefined ? {} : { together }),
      standsFor: (release) => this.standsFor(train, names, env, release),
      arrivedAll: (release) => names.every((n) => running(n) === release.members[n]),
      rolledBack: (release) => names.filter((n) => this.rolledBack(train, n, env, release)),
    };
  }

  /** Whether the member's record in `env` is the train's rollback from its release revision, done. */
  private rolledBack(train: PromotionTrain, name: string, env: string, release: Combination) {
    const ref = memberRef(train.metadata.namespace, name);
    const found = this.deps.gates.pipeline(ref.namespace, ref.name);
    const record = found?.pipeline.status?.environments?.[env]?.promotion;
    return (
      record?.rollback?.train === trainName(train) &&
      record.rollback.from === release.members[name] &&
      recordState(record) === 'Succeeded'
    );
  }

  /** Where each member stands for its revision in `release`: a probe of its own gates. */
  private standsFor(
    train: PromotionTrain,
    names: string[],
    env: string,
    release: Combination,
  ): Record<string, MemberStand> {
    const { namespace } = train.metadata;
    const out: Record<string, MemberStand> = {};
    for (const name of names) {
      const ref = memberRef(namespace, name);
      const revision = release.members[name];
      const arrived = this.deps.gates.runningIn(ref.namespace, ref.name, env) === revision;
      const found = this.deps.gates.pipeline(ref.namespace, ref.name);
      if (found === undefined || revision === undefined) {
        out[name] = { gatesMet: false, arrived, failed: false };
        continue;
      }
      const targets = this.deps.gates.statusesOf(ref.namespace, ref.name) ?? {};
      const decision = this.deps.evaluator.probe(found.pipeline, targets, env, {
        train: trainName(train),
        member: name,
        release: { ...release, state: 'Waiting' },
        dependsOn: [],
        probe: true,
      });
      const own = decision?.revision === revision;
      const gatesMet =
        arrived || (own && ['Promote', 'AlreadyPromoted', 'UpToDate'].includes(decision.outcome));
      const failed = own && ['Failed', 'Rejected'].includes(decision.outcome);
      out[name] = { gatesMet, arrived, failed };
    }
    return out;
  }
}

function promoting(status: TrainStatus | undefined): boolean {
  return (status?.environments ?? []).some((e) => e.release?.state === 'Promoting');
}
