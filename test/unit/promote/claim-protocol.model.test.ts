/**
 * A model of the claim protocol: two replicas with clocks apart, each with its own (possibly
 * stale) reads of dev and prod and its own copy of the Pipeline, deciding with the real
 * evaluator and writing with the real status changes (claim, outcome, resolution) onto one
 * stored object, in any interleaving fast-check finds, with kills and restarts. The receiver
 * applies what it accepts. Whatever happens: never two live attempts for one environment, never a
 * claim of a revision older than one that succeeded or was delivered, and the receiver never
 * gets an older revision after a newer one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  EvaluationInput,
  RetryPolicy,
  TargetStatus,
} from '../../../src/evaluate/decisions.js';
import { evaluate, promotions } from '../../../src/evaluate/evaluate.js';
import type { StatusChange } from '../../../src/kube/status-writer.js';
import type { Pipeline, PromotionRecord } from '../../../src/pipeline/pipeline-resource.js';
import { claimChange, claimRecord } from '../../../src/promote/claim.js';
import {
  concludeClaim,
  expiredClaims,
  resolutionChange,
} from '../../../src/promote/claim-resolution.js';
import { outcomeChange } from '../../../src/promote/outcome.js';

const T0 = Date.UTC(2026, 0, 1);
const ATTEMPT_MS = 3_000;
const POLICY: RetryPolicy = {
  maxAttempts: 3,
  backoffBaseMs: 1_000,
  backoffMaxMs: 4_000,
  claimTimeoutMs: 60_000,
};

type Action =
  | { kind: 'tick'; ms: number }
  | { kind: 'release' }
  | { kind: 'read'; replica: number; what: 'dev' | 'prod' | 'status' }
  | { kind: 'promote'; replica: number }
  | { kind: 'deliver'; replica: number; accept: boolean }
  | { kind: 'finish'; replica: number }
  | { kind: 'kill'; replica: number }
  | { kind: 'restart'; replica: number };

interface Attempt {
  record: PromotionRecord;
  stopAt: number;
  delivered?: boolean;
}

interface Replica {
  skew: number;
  alive: boolean;
  copy: Pipeline;
  dev?: { revision: string; verifiedAt: number };
  prod?: string;
  attempt?: Attempt;
}

/** How a replica decides and claims: the real rules, or weakened ones to show the model can fail. */
interface Protocol {
  decide: (input: EvaluationInput) => EvaluationInput;
  claim: typeof claimChange;
}

const REAL: Protocol = { decide: (input) => input, claim: claimChange };

/**
 * The rules before claims carried deadlines and an order: the evaluator ignored a claim of
 * another revision and knew no order of revisions, and a claim checked only that the record was
 * the one decided on.
 */
const WEAKENED: Protocol = {
  decide: (input) => {
    const { firstVerified: _order, ...rest } = input;
    const record = input.records.prod;
    const other =
      record?.phase === 'Claimed' && record.revision !== input.targets.dev?.[0]?.revision;
    return other ? { ...rest, records: { ...rest.records, prod: undefined } } : rest;
  },
  claim: (args) => (stored) => {
    const before = JSON.stringify(args.pipeline.status?.environments?.prod?.promotion);
    if (JSON.stringify(stored.status?.environments?.prod?.promotion) !== before)
      return { keep: 'Lost' };
    const environments = stored.status?.environments;
    const prod = { ...environments?.prod, promotion: claimRecord(args) };
    return {
      write: { ...stored.status, environments: { ...environments, prod } },
      verdict: 'Claimed',
    };
  },
};

/** The world: the stored Pipeline, the clusters' truth, the receiver's log. */
class World {
  now = T0;
  stored: Pipeline;
  devRevisions: { revision: string; verifiedAt: number }[] = [
    { revision: 'r1', verifiedAt: T0 - 60_000 },
  ];
  prodRuns = 'r0';
  delivered: { revision: string; at: number }[] = [];
  replicas: Replica[];

  constructor(
    skews: readonly number[],
    readonly protocol: Protocol = REAL,
  ) {
    this.stored = pipeline();
    // Every replica starts with a pass: it has read everything once.
    this.replicas = skews.map((skew) => ({
      skew,
      alive: true,
      copy: this.stored,
      dev: this.devRevisions[0],
      prod: this.prodRuns,
    }));
  }

  order(revision: string): number {
    return Number(revision.slice(1));
  }

  apply<V>(change: StatusChange<V>): V {
    const verdict = change(this.stored);
    if ('write' in verdict) this.stored = { ...this.stored, status: verdict.write };
    return 'write' in verdict ? verdict.verdict : verdict.keep;
  }

  /** Whether the attempt may still act: its replica alive and its bound not passed. */
  live(r: Replica): boolean {
    return r.alive && r.attempt !== undefined && this.now + r.skew < r.attempt.stopAt;
  }
}

function pipeline(): Pipeline {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'app', namespace: 'ns', generation: 1 },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
      promotion: { strategy: { notification: {} } },
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev' }] },
        { name: 'prod', targets: [{ namespace: 'prod' }] },
      ],
    },
  };
}

const healthy = (revision: string): TargetStatus => ({
  location: { cluster: '', namespace: 'x' },
  health: 'Healthy',
  revision,
  reason: 'Ready',
  message: '',
});

function inputOf(r: Replica, now: number): EvaluationInput | undefined {
  if (r.dev === undefined || r.prod === undefined) return undefined;
  const prod = r.copy.status?.environments?.prod;
  return {
    spec: r.copy.spec,
    targets: { dev: [healthy(r.dev.revision)], prod: [healthy(r.prod)] },
    records: { dev: undefined, prod: prod?.promotion },
    histories: { prod: { history: prod?.history, verified: prod?.verified } },
    firstVerified: { dev: r.dev.verifiedAt },
    policy: POLICY,
    now,
  };
}

/** The revision order of every success and delivery so far: no claim may go below it. */
function floorOf(w: World): number {
  const succeeded = (w.stored.status?.environments?.prod?.history ?? [])
    .filter((e) => e.succeededTime !== undefined)
    .map((e) => w.order(e.revision));
  return Math.max(-1, ...succeeded, ...w.delivered.map((d) => w.order(d.revision)));
}

function step(w: World, a: Action): void {
  const r = 'replica' in a ? w.replicas[a.replica] : undefined;
  switch (a.kind) {
    case 'tick':
      w.now += a.ms;
      return;
    case 'release': {
      const last = w.devRevisions.at(-1)!;
      w.devRevisions.push({
        revision: `r${String(w.order(last.revision) + 1)}`,
        verifiedAt: w.now,
      });
      return;
    }
    case 'read':
      if (r?.alive !== true) return;
      if (a.what === 'dev') r.dev = w.devRevisions.at(-1);
      else if (a.what === 'prod') r.prod = w.prodRuns;
      else r.copy = w.stored;
      return;
    case 'promote':
      if (r?.alive === true && r.attempt === undefined) promote(w, r);
      return;
    case 'deliver':
      if (r !== undefined && w.live(r) && r.attempt?.delivered === undefined)
        deliver(w, r, a.accept);
      return;
    case 'finish':
      if (r?.alive === true && r.attempt !== undefined) finish(w, r);
      return;
    case 'kill':
      if (r !== undefined) Object.assign(r, { alive: false, attempt: undefined });
      return;
    case 'restart':
      if (r !== undefined && !r.alive)
        Object.assign(r, {
          alive: true,
          copy: w.stored,
          dev: w.devRevisions.at(-1),
          prod: w.prodRuns,
        });
      return;
  }
}

function promote(w: World, r: Replica): void {
  const now = w.now + r.skew;
  // The check's first step: claims past their deadline are concluded on reads after it.
  const expired = expiredClaims(w.stored, POLICY, now);
  const concluded = expired.flatMap((c) => concludeClaim(c, [healthy(w.prodRuns)]) ?? []);
  if (concluded.length > 0) w.apply(resolutionChange(concluded, now));
  const input = inputOf(r, now);
  if (input === undefined) return;
  const decision = promotions(evaluate(w.protocol.decide(input))).find(
    (d) => d.environment === 'prod',
  );
  if (decision === undefined) return;
  const args = {
    pipeline: r.copy,
    decision,
    now,
    instanceId: `gw-${String(w.replicas.indexOf(r))}`,
    attemptTimeoutMs: ATTEMPT_MS,
  };
  const floor = floorOf(w);
  if (w.apply(w.protocol.claim(args)) !== 'Claimed') return;
  // Never an older revision claimed over a newer success or delivery.
  expect(w.order(decision.revision!)).toBeGreaterThanOrEqual(floor);
  r.attempt = { record: claimRecord(args), stopAt: now + ATTEMPT_MS };
  // Never two live attempts for one environment.
  expect(w.replicas.filter((x) => w.live(x))).toHaveLength(1);
}

function deliver(w: World, r: Replica, accept: boolean): void {
  const attempt = r.attempt!;
  attempt.delivered = accept;
  if (!accept) return;
  const last = w.delivered.at(-1);
  // The receiver never gets an older revision after a newer one.
  if (last !== undefined)
    expect(w.order(attempt.record.revision)).toBeGreaterThanOrEqual(w.order(last.revision));
  w.delivered.push({ revision: attempt.record.revision, at: w.now });
  w.prodRuns = attempt.record.revision;
}

function finish(w: World, r: Replica): void {
  const attempt = r.attempt!;
  const result =
    attempt.delivered === true
      ? { ok: true as const, message: 'accepted' }
      : { ok: false as const, reason: 'WebhookRejected', message: 'refused', retryable: true };
  w.apply(outcomeChange('prod', attempt.record, result, w.now + r.skew).change);
  r.attempt = undefined;
}

const replica = fc.integer({ min: 0, max: 1 });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      ms: fc.oneof(fc.integer({ min: 1, max: 2_500 }), fc.constant(10_000)),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'release' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      replica,
      what: fc.constantFrom('dev' as const, 'prod' as const, 'status' as const),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('promote' as const), replica }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('deliver' as const), replica, accept: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('finish' as const), replica }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('kill' as const), replica }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('restart' as const), replica }) },
);

describe('the claim protocol, modelled', () => {
  it('keeps one attempt at a time and the order of revisions under any interleaving', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: -1_000, max: 1_000 }), fc.integer({ min: -1_000, max: 1_000 })),
        fc.array(action, { minLength: 10, maxLength: 150 }),
        (skews, actions) => {
          const w = new World(skews, REAL);
          for (const a of actions) step(w, a);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('finds the broken interleavings of the weaker rules (the model can fail)', () => {
    const found = fc.check(
      fc.property(fc.array(action, { minLength: 10, maxLength: 120 }), (actions) => {
        const w = new World([0, 0], WEAKENED);
        for (const a of actions) step(w, a);
      }),
      { numRuns: 3_000, seed: 42 },
    );
    expect(found.failed).toBe(true);
  });
});
