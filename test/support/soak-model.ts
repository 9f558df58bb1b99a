/**
 * A model of the gateway around the real pure parts of a soak, for the property tests
 * (test/unit/evaluate/soak.property.test.ts): replicas read dev's two targets (each read
 * faithful to the truth at that moment, or Unknown when the read fails) into their streaks
 * (advanceStreak, as VerifiedTargets does), write their view through the real viewChange to one
 * stored Pipeline (a write is answered by every replica checking again, as the Pipeline watch
 * makes them; a Stale view re-reads first), restart (everything but the status is lost), and
 * decide with the real evaluator after the confirmation re-read a promotion makes. Reads need
 * not be written: a check's write can be lost or coalesced. prod soaks SOAK_MS on dev.
 */
import fc from 'fast-check';
import type { TargetStatus } from '../../src/evaluate/decisions.js';
import { advanceStreak, type ReadStreak } from '../../src/evaluate/healthy-since.js';
import type { Pipeline } from '../../src/pipeline/pipeline-resource.js';
import { parseTimestamp } from '../../src/time/kube-time.js';
import {
  evaluatePipeline,
  type EvaluationSettings,
} from '../../src/evaluation/evaluation-input.js';
import { soakInputOf, type ReadHistory } from '../../src/evaluation/soak-input.js';
import { statusEqual } from '../../src/status/compute-status.js';
import { viewChange } from '../../src/status/view-change.js';

/** prod's soak. */
export const SOAK_MS = 60_000;
const FRESH_MS = 2_000;
/** When every model starts. */
export const T0 = Date.UTC(2026, 0, 1);
const REVISIONS = ['1.0.0', '2.0.0'] as const;
const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1_000,
  backoffMaxMs: 10_000,
  claimTimeoutMs: 60_000,
};

/** One step of a scenario. */
export type Action =
  | { kind: 'tick'; ms: number }
  | { kind: 'change'; target: number; health: 'Healthy' | 'Unhealthy'; revision: string }
  | { kind: 'read'; replica: number; target: number; fails: boolean }
  | { kind: 'write' | 'restart' | 'decide'; replica: number };

interface Read {
  status: TargetStatus;
  readAt: number;
  streak: ReadStreak;
}
/** One replica: what it has read, in memory until it restarts. */
export interface Replica {
  id: number;
  incarnation: number;
  started: number;
  reads: (Read | undefined)[];
}
/** One read, anywhere: `seq` orders it among everything that happened. */
export interface Observation {
  seq: number;
  replica: number;
  incarnation: number;
  time: number;
  status: TargetStatus;
}
/** A write that changed the status; `readable`: no Unknown among the writer's reads of dev. */
interface Write {
  seq: number;
  replica: number;
  incarnation: number;
  readable: boolean;
}

const status = (health: TargetStatus['health'], revision?: string): TargetStatus => ({
  location: { cluster: '', namespace: 'apps' },
  health,
  ...(revision === undefined ? {} : { revision }),
  reason: health === 'Healthy' ? 'Ready' : health === 'Unknown' ? 'Unavailable' : 'UpgradeFailed',
  message: '',
});

function pipeline(): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'app', namespace: 'apps', generation: 1, resourceVersion: '1' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
      environments: [
        { name: 'dev', targets: [{ namespace: 'a' }, { namespace: 'b' }] },
        {
          name: 'prod',
          targets: [{ namespace: 'p' }],
          promotion: { strategy: { notification: {} }, soak: { duration: '60s' } },
        },
      ],
    },
  };
}

/** The gateway's shared and per-replica state, and the log the properties are checked on. */
export class World {
  now = T0;
  seq = 0;
  stored = pipeline();
  truth: TargetStatus[] = [status('Healthy', '1.0.0'), status('Healthy', '1.0.0')];
  replicas: Replica[];
  observations: Observation[] = [];
  writes: Write[] = [];
  promotions: { replica: Replica; seq: number; at: number; revision: string; since: number }[] = [];

  constructor(count: number) {
    this.replicas = Array.from({ length: count }, (_, id) => ({
      id,
      incarnation: 0,
      started: T0,
      reads: [undefined, undefined],
    }));
  }

  read(r: Replica, target: number, fails = false): void {
    const previous = r.reads[target];
    const read = fails ? status('Unknown') : (this.truth[target] ?? status('Unknown'));
    const streak = advanceStreak(previous?.streak, read, this.now, previous?.readAt);
    r.reads[target] = { status: read, readAt: this.now, streak };
    this.observations.push({
      seq: ++this.seq,
      replica: r.id,
      incarnation: r.incarnation,
      time: this.now,
      status: read,
    });
    // A read takes time: no two reads share an instant, so "before" is never a tie.
    this.now += 1;
  }

  targets(r: Replica): Record<string, TargetStatus[]> {
    const dev = r.reads.map((read) => read?.status ?? status('Unknown'));
    return { dev, prod: [status('Healthy', '0.9.0')] };
  }

  history(r: Replica): ReadHistory {
    return {
      readAt: { dev: r.reads.map((read) => read?.readAt), prod: [r.started] },
      streaks: { dev: r.reads.map((read) => read?.streak), prod: [undefined] },
    };
  }

  settings(r: Replica): EvaluationSettings {
    return { policy: POLICY, floors: {}, history: { historyOf: () => this.history(r) } };
  }

  /** One view write by `r`: 'written', 'same', or the dev targets it must read again. */
  write(r: Replica): 'written' | 'same' | number[] {
    const targets = this.targets(r);
    const reevaluate = (p: Pipeline, t: Record<string, TargetStatus[]>) =>
      evaluatePipeline(p, t, this.settings(r), this.now);
    const { readAt, streaks } = this.history(r);
    const inputs = { pipeline: this.stored, targets, observedAt: readAt, streaks };
    const change = viewChange(
      { ...inputs, evaluation: reevaluate(this.stored, targets) },
      { now: this.now, reevaluate },
    );
    const verdict = change(this.stored);
    if ('keep' in verdict) {
      const stale = verdict.keep.kind === 'Stale' ? verdict.keep.targets : [];
      return stale.filter((p) => p.environment === 'dev').map((p) => p.index);
    }
    if (statusEqual(verdict.write, this.stored.status)) return 'same';
    this.stored = { ...this.stored, status: verdict.write };
    const readable = r.reads.every(
      (read) => read !== undefined && read.status.health !== 'Unknown',
    );
    this.writes.push({ seq: ++this.seq, replica: r.id, incarnation: r.incarnation, readable });
    return 'written';
  }

  /** `r` writes; while some write changes the status, every replica checks again. */
  writeAndEcho(r: Replica): void {
    let pending: Replica[] = [r];
    for (let round = 0; round < 12 && pending.length > 0; round++) {
      let changed = false;
      for (const replica of pending) {
        let result = this.write(replica);
        if (Array.isArray(result)) {
          for (const target of result) this.read(replica, target);
          result = this.write(replica);
        }
        if (result === 'written') changed = true;
      }
      pending = changed ? this.replicas : [];
    }
  }

  /** A check of `r` that promotes: confirm (re-read what is not fresh), decide again. */
  decide(r: Replica): void {
    const first = this.prodDecision(r);
    if (first.outcome !== 'Promote') return;
    r.reads.forEach((read, target) => {
      if (read === undefined || this.now - read.readAt > FRESH_MS) this.read(r, target);
    });
    const confirmed = this.prodDecision(r);
    if (confirmed.outcome === 'Promote' && confirmed.revision !== undefined) {
      const soak = soakInputOf(this.stored, this.targets(r), this.settings(r).history, this.now);
      const since = parseTimestamp(soak.soak?.dev?.time) ?? Number.NaN;
      const revision = confirmed.revision;
      this.promotions.push({ replica: { ...r }, seq: ++this.seq, at: this.now, revision, since });
    }
    this.writeAndEcho(r);
  }

  prodDecision(r: Replica) {
    const evaluation = evaluatePipeline(this.stored, this.targets(r), this.settings(r), this.now);
    const prod = evaluation.decisions.find((d) => d.environment === 'prod');
    if (prod === undefined) throw new Error('no decision for prod');
    return prod;
  }

  apply(action: Action): void {
    const r = 'replica' in action ? this.replicas[action.replica] : undefined;
    switch (action.kind) {
      case 'tick':
        this.now += action.ms;
        return;
      case 'change':
        this.truth[action.target] = status(action.health, action.revision);
        return;
      case 'read':
        if (r) this.read(r, action.target, action.fails);
        return;
      case 'write':
        if (r) this.writeAndEcho(r);
        return;
      case 'restart':
        if (r)
          Object.assign(r, {
            incarnation: r.incarnation + 1,
            started: this.now,
            reads: [undefined, undefined],
          });
        return;
      case 'decide':
        if (r) this.decide(r);
        return;
    }
  }

  /** Whether a decision at `at` knew of `o`: a read of its own before it, or one written since. */
  known(o: Observation, decider: Replica, at: number): boolean {
    if (o.seq > at) return false;
    if (o.replica === decider.id && o.incarnation === decider.incarnation) return true;
    return this.writes.some(
      (w) =>
        w.seq > o.seq &&
        w.seq < at &&
        w.replica === o.replica &&
        w.incarnation === o.incarnation &&
        w.readable,
    );
  }
}

/** Scenario steps for `replicas` replicas; truth changes and failing reads when asked. */
export const actionArb = (
  replicas: number,
  changes: boolean,
  failures: boolean,
): fc.Arbitrary<Action> => {
  const replica = fc.integer({ min: 0, max: replicas - 1 });
  const arms: fc.WeightedArbitrary<Action>[] = [
    {
      weight: 3,
      arbitrary: fc.integer({ min: 0, max: 40_000 }).map((ms) => ({ kind: 'tick' as const, ms })),
    },
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('read' as const),
        replica,
        target: fc.integer({ min: 0, max: 1 }),
        fails: failures ? fc.integer({ min: 0, max: 7 }).map((n) => n === 0) : fc.constant(false),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('write' as const), replica }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), replica }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('decide' as const), replica }) },
  ];
  if (changes) {
    arms.push({
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('change' as const),
        target: fc.integer({ min: 0, max: 1 }),
        health: fc.constantFrom('Healthy' as const, 'Unhealthy' as const),
        revision: fc.constantFrom(...REVISIONS),
      }),
    });
  }
  return fc.oneof(...arms);
};

/** Runs `actions` on a new world of `replicas` replicas and returns it. */
export function run(replicas: number, actions: readonly Action[]): World {
  const world = new World(replicas);
  for (const action of actions) world.apply(action);
  return world;
}

/** Whether a read is a break of a run at `revision`: not Healthy at it. */
export const isBreakFor = (revision: string) => (o: Observation) =>
  o.status.health !== 'Healthy' || o.status.revision !== revision;
