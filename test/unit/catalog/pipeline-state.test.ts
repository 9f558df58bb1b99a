import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { observe } from '../../../src/catalog/pipeline-state.js';
import type { TargetStatus } from '../../../src/evaluate/decisions.js';
import type {
  EnvironmentStatus,
  Pipeline,
  PipelineStatus,
} from '../../../src/pipeline/pipeline-resource.js';
import { evaluatePipeline } from '../../../src/evaluation/evaluation-input.js';
import { samplePipeline, T0 } from '../../support/pipeline-fixtures.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A Pipeline as the API server sends it: bookkeeping the gateway never reads included. */
function asServed(pipeline: Pipeline): Pipeline {
  pipeline.metadata = {
    ...pipeline.metadata,
    resourceVersion: '41',
    creationTimestamp: '2026-01-01T00:00:00Z',
    finalizers: ['keep'],
    managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
    labels: { team: 'web' },
    annotations: { [LAST_APPLIED]: JSON.stringify(pipeline.spec), owner: 'web' },
  };
  return pipeline;
}

const STATUS: PipelineStatus = {
  observedGeneration: 3,
  environments: {
    dev: {
      promotion: {
        revision: '1.1.0',
        lastAttemptedTime: '2026-03-04T05:00:00Z',
        succeeded: true,
        phase: 'Succeeded',
      },
      healthySince: { revision: '1.1.0', time: '2026-03-04T05:01:00.000Z' },
    },
  },
  halts: [
    {
      id: 'h1',
      environment: 'prod',
      principal: 'alice',
      kind: 'human',
      reason: 'incident',
      time: '2026-03-04T04:00:00Z',
    },
  ],
};

describe('observe', () => {
  it.each([
    ['name and namespace', (p: Pipeline) => [p.metadata.name, p.metadata.namespace], true],
    [
      'uid, generation, resourceVersion',
      (p: Pipeline) => [p.metadata.uid, p.metadata.generation, p.metadata.resourceVersion],
      true,
    ],
    ['labels', (p: Pipeline) => p.metadata.labels, true],
    ['annotations other than the applied copy', (p: Pipeline) => p.metadata.annotations, false],
    ['managedFields', (p: Pipeline) => p.metadata.managedFields, false],
    [
      'creationTimestamp and finalizers',
      (p: Pipeline) => [p.metadata.creationTimestamp, p.metadata.finalizers],
      false,
    ],
    ['the spec', (p: Pipeline) => p.spec, true],
    ['the status', (p: Pipeline) => p.status, true],
  ] as const)('%s: kept as given (true) or dropped (false)', (_, field, kept) => {
    const given = asServed(samplePipeline(structuredClone(STATUS)));
    const state = observe(given);
    if (kept) expect(field(state)).toEqual(field(given));
    else expect(field(state)).not.toEqual(field(given));
  });

  it('keeps the other annotations, and none when only the applied copy was there', () => {
    const given = asServed(samplePipeline());
    expect(observe(given).metadata.annotations).toEqual({ owner: 'web' });
    given.metadata.annotations = { [LAST_APPLIED]: '{}' };
    expect(observe(given).metadata).not.toHaveProperty('annotations');
    expect(observe(given).metadata.creationTimestamp).toBeUndefined();
  });

  it('shares nothing with the Pipeline, changes nothing of it, and is deep-frozen', () => {
    const given = asServed(samplePipeline(structuredClone(STATUS)));
    const before = structuredClone(given);
    const state = observe(given);
    expect(given).toEqual(before);
    expect(state.spec).not.toBe(given.spec);
    expect(state.spec.environments[0]).not.toBe(given.spec.environments[0]);
    expect(state.status?.halts).not.toBe(given.status?.halts);
    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.spec.environments[0]?.targets[0])).toBe(true);
    expect(Object.isFrozen(state.status?.environments?.dev?.promotion)).toBe(true);
    expect(() => {
      (state.metadata as { name: string }).name = 'other';
    }).toThrow(TypeError);
  });

  it('keeps the previous spec at the same generation, and copies a new one', () => {
    const first = observe(samplePipeline());
    const again = samplePipeline(structuredClone(STATUS));
    expect(observe(again, { previous: first }).spec).toBe(first.spec);
    const changed = samplePipeline();
    changed.metadata.generation = 4;
    changed.spec.environments.pop();
    const next = observe(changed, { previous: first });
    expect(next.spec).not.toBe(first.spec);
    expect(next.spec.environments).toHaveLength(2);
    // Without a generation nothing says the spec is the same: it is copied.
    const unversioned = samplePipeline();
    delete unversioned.metadata.generation;
    expect(observe(unversioned, { previous: observe(unversioned) }).spec).not.toBe(first.spec);
  });

  it("shares a target record's clusterRef with the spec's equal one, and only an equal one", () => {
    const record = (name: string) => ({
      clusterAppRef: {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        name: 'podinfo',
        clusterRef: { kind: 'GitopsCluster' as const, name },
      },
      ready: true,
    });
    const given = samplePipeline({
      environments: { dev: { targets: [{ ...record('x'), ready: false }, record('dev-eu')] } },
    });
    const state = observe(given);
    const dev = state.status?.environments?.dev?.targets;
    expect(dev?.[1]?.clusterAppRef.clusterRef).toBe(
      state.spec.environments[0]?.targets[1]?.clusterRef,
    );
    expect(dev?.[0]?.clusterAppRef.clusterRef).toEqual({ kind: 'GitopsCluster', name: 'x' });
    expect(state.status).toEqual(given.status);
  });

  it('passes every string of its copy through intern', () => {
    const seen = new Set<string>();
    const state = observe(samplePipeline(structuredClone(STATUS)), {
      intern: (text) => {
        seen.add(text);
        return text.toUpperCase();
      },
    });
    expect(state.spec.appRef.kind).toBe('HELMRELEASE');
    expect(state.status?.halts?.[0]?.reason).toBe('INCIDENT');
    expect(seen).toContain('1.1.0');
    expect(seen).toContain('podinfo');
  });
});

const ENVS = ['dev', 'staging', 'prod'] as const;
const revision = fc.constantFrom('1.0.0', '1.1.0', '1.2.0');
const time = fc.integer({ min: -3_600_000, max: 0 }).map((ms) => new Date(T0 + ms).toISOString());

const environmentStatus: fc.Arbitrary<EnvironmentStatus> = fc.record(
  {
    promotion: fc.record(
      {
        revision,
        lastAttemptedTime: time,
        succeeded: fc.boolean(),
        attempt: fc.integer({ min: 1, max: 4 }),
        phase: fc.constantFrom('Claimed' as const, 'Succeeded' as const, 'Failed' as const),
        deadlineTime: time,
        retryable: fc.boolean(),
      },
      { requiredKeys: ['revision', 'lastAttemptedTime', 'succeeded'] },
    ),
    approvals: fc.array(
      fc.record({
        principal: fc.constantFrom('alice', 'bob'),
        kind: fc.constant('human' as const),
        decision: fc.constantFrom('approve' as const, 'reject' as const),
        revision,
        time,
      }),
      { maxLength: 3 },
    ),
    healthySince: fc.record({ revision, time }),
    waitingApproval: fc.record({ revision, since: time }),
  },
  { requiredKeys: [] },
);

const halts = fc.array(
  fc.record(
    {
      id: fc.constantFrom('h1', 'h2'),
      environment: fc.constantFrom(...ENVS),
      principal: fc.constant('alice'),
      kind: fc.constant('human' as const),
      reason: fc.constant('incident'),
      time,
      expiresAt: fc
        .integer({ min: -60_000, max: 60_000 })
        .map((ms) => new Date(T0 + ms).toISOString()),
    },
    { requiredKeys: ['id', 'principal', 'kind', 'reason', 'time'] },
  ),
  { maxLength: 2 },
);

const health = fc.constantFrom('Healthy' as const, 'Unhealthy' as const, 'Unknown' as const);

/** A Pipeline as served, with random records and halts, and random reads of its targets. */
const scenario = fc.record({
  statuses: fc.record({
    dev: environmentStatus,
    staging: environmentStatus,
    prod: environmentStatus,
  }),
  halts,
  manualStaging: fc.boolean(),
  minApprovals: fc.integer({ min: 0, max: 2 }),
  soak: fc.constantFrom(undefined, '0s', '30m'),
  reads: fc.array(fc.record({ health, revision }), { minLength: 4, maxLength: 4 }),
});

const POLICY = {
  maxAttempts: 3,
  backoffBaseMs: 1000,
  backoffMaxMs: 10_000,
  claimTimeoutMs: 60_000,
};

describe('observe: what the evaluator reads', () => {
  it('evaluating the state decides exactly as evaluating the Pipeline', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const pipeline = asServed(samplePipeline({ environments: s.statuses, halts: s.halts }));
        const staging = pipeline.spec.environments[1];
        if (staging !== undefined) {
          staging.promotion = {
            manual: s.manualStaging,
            strategy: { notification: {} },
            ...(s.minApprovals === 0 ? {} : { approval: { minApprovals: s.minApprovals } }),
            ...(s.soak === undefined ? {} : { soak: { duration: s.soak } }),
          };
        }
        let read = 0;
        const targets: Record<string, TargetStatus[]> = {};
        for (const env of pipeline.spec.environments) {
          targets[env.name] = env.targets.map((t) => {
            const r = s.reads[read++ % s.reads.length] ?? { health: 'Unknown', revision: '1.0.0' };
            const location = { cluster: t.clusterRef?.name ?? 'mgmt', namespace: t.namespace };
            return { location, ...r, reason: 'Ready', message: 'read' };
          });
        }
        const settings = { policy: POLICY, floors: {} };
        const fromState = evaluatePipeline(observe(pipeline), targets, settings, T0);
        const fromPipeline = evaluatePipeline(pipeline, targets, settings, T0);
        expect(fromState.decisions).toEqual(fromPipeline.decisions);
        expect(fromState.input).toEqual(fromPipeline.input);
      }),
      { numRuns: 200 },
    );
  });
});
