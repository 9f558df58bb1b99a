/**
 * Release trains, wired: what every replica knows of the PromotionTrains (the book, listed
 * before the first Pipeline check and then every few seconds) and the gates every evaluation
 * reads from it; and, on the replica holding the resync Lease, the train reconciler's pass.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import { TrainGates } from '../evaluation/train-gates.js';
import type { PipelineEvaluator } from '../evaluation/pipeline-evaluator.js';
import type { PipelineTrigger } from '../hints/sinks.js';
import { KubeObjectReader } from '../kube/reader.js';
import { KubeTrainWriter } from '../kube/train-writer.js';
import { TrainPass, type TrainPassDeps } from '../resync/train-pass.js';
import { TrainBook } from '../trains/train-book.js';
import { TrainSource } from '../trains/train-source.js';
import { TrainStatusWriter } from '../trains/train-status-writer.js';
import type { ClusterAccess } from './cluster-access.js';
import type { Runtime } from './runtime.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { EventRecord } from '../kube/ports.js';

/** How often the Lease holder runs a train pass (it also refreshes its book). */
export const TRAIN_PASS_MS = 1_000;
/**
 * How old a listing may be when a Pipeline not known in a train is promoted: a wave of
 * promotions shares one listing, and a train applies to promotions confirmed from this long
 * after it was created.
 */
export const TRAIN_FRESHNESS_MS = 250;
/** How often a replica without the Lease lists the trains again. */
export const TRAIN_LISTING_MS = 5_000;

/** The book and the gates: built before the promotion loop, whose evaluator reads the gates. */
export function trainKnowledge(rt: Runtime, catalog: PipelineCatalog, access: ClusterAccess) {
  const book = new TrainBook(rt.config.trains.crossNamespace);
  const source = new TrainSource(
    new KubeObjectReader(rt.management, rt.calls),
    rt.config.pipelineNamespaces,
  );
  const gates = new TrainGates({ book, catalog, verified: access.verified });
  let listedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;
  /** Lists the trains into the book (one listing at a time); a failed one keeps what was known. */
  const refresh = (): Promise<void> => {
    inFlight ??= (async () => {
      const started = rt.now();
      const listed = await source.list();
      if (listed.ok) {
        book.update(listed.trains);
        listedAt = started;
      }
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  /**
   * Before a promotion: a member of a train lists again (its release may have moved on this
   * moment); any other Pipeline lists when the last listing is older than TRAIN_FRESHNESS_MS
   * (a train may have been created for it since).
   */
  const current = async (pipeline: Pipeline): Promise<void> => {
    const { namespace, name } = pipeline.metadata;
    const member = book.membershipOf(namespace, name, (ns) => gates.candidates(ns));
    if (member !== undefined || rt.now() - listedAt >= TRAIN_FRESHNESS_MS) await refresh();
  };
  // What the promotion loop reads: the gates, and the listing renewed before a promotion.
  const loopAccess = { trains: gates, trainsCurrent: current };
  return { book, source, gates, refresh, current, loopAccess };
}

/** What trainKnowledge builds. */
export type TrainKnowledge = ReturnType<typeof trainKnowledge>;

/**
 * The train reconciler's loop: a pass every TRAIN_PASS_MS while this replica holds the Lease,
 * a listing every TRAIN_LISTING_MS otherwise. start() returns its stop.
 */
export function trainLoop(
  rt: Runtime,
  trains: TrainKnowledge,
  loop: { pipelines: PipelineTrigger; evaluator: PipelineEvaluator },
  isLeader: () => boolean,
  told: {
    events: { emitEvent(event: EventRecord): Promise<void> };
    outbox?: TrainPassDeps['outbox'];
  },
) {
  const pass = new TrainPass({
    ...{ source: trains.source, book: trains.book, gates: trains.gates },
    writer: new TrainStatusWriter(new KubeTrainWriter(rt.management, rt.calls), {
      scheduler: rt.scheduler,
      random: rt.random,
    }),
    ...{ evaluator: loop.evaluator, pipelines: loop.pipelines, logger: rt.logger, now: rt.now },
    events: told.events,
    ...(told.outbox === undefined ? {} : { outbox: told.outbox }),
  });
  let sinceListing = 0;
  const tick = async (): Promise<void> => {
    sinceListing += TRAIN_PASS_MS;
    if (isLeader()) await pass.run();
    else if (sinceListing >= TRAIN_LISTING_MS) await trains.refresh();
    else return;
    sinceListing = 0;
  };
  return {
    pass,
    start: (): (() => void) => {
      let cancel: (() => void) | undefined;
      let stopped = false;
      const next = (): void => {
        void tick()
          .catch((err: unknown) => {
            rt.logger.warn({ err }, 'train pass failed');
          })
          .finally(() => {
            if (!stopped) cancel = rt.scheduler.setTimer(TRAIN_PASS_MS, next);
          });
      };
      cancel = rt.scheduler.setTimer(TRAIN_PASS_MS, next);
      return () => {
        stopped = true;
        cancel?.();
      };
    },
  };
}
