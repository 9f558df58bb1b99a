/**
 * The rollback property, over random sequences of deploys, promotions (some of whose claims are
 * cut off by a crash and resolved later), failures, recoveries, rollback requests (allowed or
 * not, to any revision), approvals, lifted holds and restarts, decided by the real evaluator and
 * written with the real claim, outcome and resolution changes onto one stored Pipeline: no
 * environment ever runs a revision its upstream did not run healthy, a rollback only ever goes
 * to a revision the environment ran healthy and only when the allowed quorum asked (or a failed
 * verification made it automatic), and once a revision failed verification in staging, prod is
 * never promoted to it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EnvironmentDecision, TargetStatus } from '../../../src/evaluate/decisions.js';
import { evaluate, promotions } from '../../../src/evaluate/evaluate.js';
import type { StatusChange } from '../../../src/kube/status-writer.js';
import type { EnvironmentStatus, Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { claimChange, claimRecord } from '../../../src/promote/claim.js';
import {
  concludeClaim,
  expiredClaims,
  resolutionChange,
} from '../../../src/promote/claim-resolution.js';
import { outcomeChange } from '../../../src/promote/outcome.js';
import { rfc3339, rfc3339Millis } from '../../../src/time/kube-time.js';
import { POLICY } from '../../support/evaluate-builders.js';

const T0 = Date.UTC(2026, 0, 1);
const ENVS = ['dev', 'staging', 'prod'] as const;
type Env = (typeof ENVS)[number];

type Action =
  | { kind: 'deploy' }
  | { kind: 'promote'; healthy: boolean; crash: boolean; delivered: boolean }
  | { kind: 'fail'; env: Env }
  | { kind: 'recover'; env: Env }
  | { kind: 'ask'; env: Env; principal: string; pick: number }
  | { kind: 'approve'; principal: string }
  | { kind: 'lift'; env: Env; pick: number }
  | { kind: 'tick'; ms: number }
  | { kind: 'restart' };

const env = fc.constantFrom<Env>('staging', 'prod');
const who = fc.constantFrom('alice', 'bob', 'mallory');
const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'deploy' as const }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('promote' as const),
      healthy: fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
      crash: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
      delivered: fc.boolean(),
    }),
    weight: 8,
  },
  { arbitrary: fc.record({ kind: fc.constant('fail' as const), env }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('recover' as const), env }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('ask' as const),
      env,
      principal: who,
      pick: fc.nat(9),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('approve' as const), principal: who }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('lift' as const), env, pick: fc.nat(9) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      ms: fc.integer({ min: 1_000, max: 600_000 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: 'restart' as const }), weight: 2 },
);

interface Run {
  revision: string;
  healthy: boolean;
}

/** The one stored Pipeline, what each environment runs, and what the property tracks. */
class World {
  now = T0;
  next = 2;
  pipeline: Pipeline;
  runs: Record<Env, Run> = {
    dev: { revision: '1', healthy: true },
    staging: { revision: '1', healthy: true },
    prod: { revision: '1', healthy: true },
  };
  /** Per environment, the revisions the one before it ran healthy, ever. */
  upstreamRan: Record<Env, Set<string>> = {
    dev: new Set(),
    staging: new Set(['1']),
    prod: new Set(['1']),
  };
  revisions = ['1'];

  constructor(gated: boolean, quorum: number) {
    const strategy = { notification: {} };
    this.pipeline = {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { name: 'app', namespace: 'ns', generation: 1 },
      spec: {
        appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'app' },
        environments: ENVS.map((name) => ({
          name,
          targets: [{ namespace: 'apps' }],
          ...(name === 'staging'
            ? { promotion: { strategy, rollback: { automatic: { window: '15m' } } } }
            : {}),
          ...(name === 'prod'
            ? {
                promotion: {
                  strategy,
                  ...(gated ? { manual: true } : {}),
                  rollback: { approvers: ['alice', 'bob'], minApprovals: quorum },
                },
              }
            : {}),
        })),
      },
      status: {},
    };
    this.observe();
  }

  env(name: Env): EnvironmentStatus {
    return this.pipeline.status?.environments?.[name] ?? {};
  }

  apply<V>(change: StatusChange<V>): V {
    const result = change(this.pipeline);
    if ('write' in result) this.pipeline = { ...this.pipeline, status: result.write };
    return 'write' in result ? result.verdict : result.keep;
  }

  patch(name: Env, fields: Partial<EnvironmentStatus>): void {
    const environments = {
      ...this.pipeline.status?.environments,
      [name]: { ...this.env(name), ...fields },
    };
    this.pipeline = { ...this.pipeline, status: { ...this.pipeline.status, environments } };
  }

  /** What the verified view keeps: each revision an environment first ran healthy. */
  observe(): void {
    ENVS.forEach((name, i) => {
      const run = this.runs[name];
      const next = ENVS[i + 1];
      if (run.healthy && next !== undefined) this.upstreamRan[next].add(run.revision);
      const verified = this.env(name).verified ?? [];
      if (run.healthy && !verified.some((v) => v.revision === run.revision))
        this.patch(name, {
          verified: [...verified, { revision: run.revision, time: rfc3339Millis(this.now) }].slice(
            -20,
          ),
        });
    });
  }

  targets(): Record<string, TargetStatus[]> {
    return Object.fromEntries(
      ENVS.map((name) => {
        const run = this.runs[name];
        const status: TargetStatus = {
          location: { cluster: name, namespace: 'apps' },
          health: run.healthy ? 'Healthy' : 'Unhealthy',
          revision: run.revision,
          reason: run.healthy ? 'Ready' : 'Stalled',
          message: run.healthy ? 'ready' : 'stalled',
        };
        return [name, [status]];
      }),
    );
  }

  decide(): EnvironmentDecision[] {
    const stored = this.pipeline.status?.environments ?? {};
    const pick = <K extends keyof EnvironmentStatus>(key: K) =>
      Object.fromEntries(ENVS.map((n) => [n, stored[n]?.[key]]));
    return evaluate({
      spec: this.pipeline.spec,
      targets: this.targets(),
      records: pick('promotion'),
      authorizations: pick('approvals'),
      holds: pick('holds'),
      histories: Object.fromEntries(
        ENVS.map((n) => [n, { history: stored[n]?.history, verified: stored[n]?.verified }]),
      ),
      policy: POLICY,
      now: this.now,
      approvers: ['alice', 'bob'],
    }).decisions;
  }
}

/** Runs one promotion or rollback the evaluator decides, checking what it delivers. */
function promote(world: World, a: Extract<Action, { kind: 'promote' }>): void {
  const decision = promotions({ decisions: world.decide() })[0];
  if (decision?.revision === undefined) return;
  const name = decision.environment as Env;
  const args = {
    pipeline: world.pipeline,
    decision,
    now: world.now,
    instanceId: 'r',
    attemptTimeoutMs: 1_000,
  };
  const record = claimRecord(args);
  if (world.apply(claimChange(args)) !== 'Claimed') return;
  if (!a.crash || a.delivered) deliver(world, name, decision, a.healthy);
  if (a.crash) return;
  world.apply(outcomeChange(name, record, { ok: true, message: 'ok' }, world.now).change);
}

function deliver(world: World, name: Env, decision: EnvironmentDecision, healthy: boolean): void {
  const revision = decision.revision ?? '';
  // No environment runs a revision its upstream did not run healthy.
  expect(world.upstreamRan[name].has(revision), `${name} got ${revision}`).toBe(true);
  if (decision.outcome === 'RollBack') {
    // Only to a revision it ran healthy, and only automatic or asked by the allowed quorum.
    expect((world.env(name).verified ?? []).map((v) => v.revision)).toContain(revision);
    const view = decision.rollback;
    expect(view).toBeDefined();
    if (view?.automatic !== true) {
      expect(view?.by.every((p) => p === 'alice' || p === 'bob')).toBe(true);
      const quorum = world.pipeline.spec.environments[2]?.promotion?.rollback?.minApprovals ?? 1;
      if (name === 'prod') expect(new Set(view?.by).size).toBeGreaterThanOrEqual(quorum);
    }
  } else if (name === 'prod') {
    // Never what failed verification in staging.
    const failed = (world.env('staging').holds ?? []).filter(
      (h) => h.reason === 'FailedVerification' && h.liftedAt === undefined,
    );
    expect(failed.map((h) => h.revision)).not.toContain(revision);
  }
  world.runs[name] = { revision, healthy };
}

function step(world: World, a: Action): void {
  switch (a.kind) {
    case 'deploy': {
      const revision = String(world.next++);
      world.revisions.push(revision);
      world.runs.dev = { revision, healthy: true };
      break;
    }
    case 'promote':
      promote(world, a);
      break;
    case 'fail':
      world.runs[a.env] = { ...world.runs[a.env], healthy: false };
      break;
    case 'recover':
      world.runs[a.env] = { ...world.runs[a.env], healthy: true };
      break;
    case 'ask': {
      const revision = world.revisions[a.pick % world.revisions.length] ?? '1';
      const record = {
        ...{ principal: a.principal, kind: 'human' as const, decision: 'rollback' as const },
        ...{ revision, from: world.runs[a.env].revision, time: rfc3339(world.now), comment: 'r' },
      };
      world.patch(a.env, { approvals: [...(world.env(a.env).approvals ?? []), record] });
      break;
    }
    case 'approve': {
      const record = {
        ...{ principal: a.principal, kind: 'human' as const, decision: 'approve' as const },
        ...{ revision: world.runs.staging.revision, time: rfc3339(world.now) },
      };
      world.patch('prod', { approvals: [...(world.env('prod').approvals ?? []), record] });
      break;
    }
    case 'lift': {
      const holds = world.env(a.env).holds ?? [];
      const i = a.pick % Math.max(1, holds.length);
      const lifted = holds.map((h, k) =>
        k === i && h.liftedAt === undefined
          ? { ...h, liftedAt: rfc3339(world.now), liftedBy: 'alice' }
          : h,
      );
      world.patch(a.env, { holds: lifted });
      break;
    }
    case 'tick':
      world.now += a.ms;
      break;
    case 'restart': {
      // A replica starting again: claims past their deadline are resolved from what runs.
      const targets = world.targets();
      const resolutions = expiredClaims(world.pipeline, POLICY, world.now).flatMap((c) => {
        const r = concludeClaim(c, targets[c.environment] ?? []);
        return r === undefined ? [] : [r];
      });
      world.apply(resolutionChange(resolutions, world.now));
      break;
    }
  }
  world.observe();
}

describe('rollback property', () => {
  it('no environment runs a revision its upstream did not run healthy, except by an authorized rollback', () => {
    fc.assert(
      fc.property(
        fc.array(action, { minLength: 20, maxLength: 80 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 2 }),
        (actions, gated, quorum) => {
          const world = new World(gated, quorum);
          for (const a of actions) step(world, a);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('the model can fail: a rollback to a revision never run healthy is caught', () => {
    const world = new World(false, 1);
    expect(() => {
      deliver(
        world,
        'prod',
        {
          environment: 'prod',
          outcome: 'RollBack',
          revision: '9',
          reason: 'RollbackAuthorized',
          message: '',
          rollback: { from: '1', by: ['mallory'], reason: 'r', statements: [], automatic: false },
        },
        true,
      );
    }).toThrow();
  });
});
