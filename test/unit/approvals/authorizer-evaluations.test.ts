/**
 * How often the approval door evaluates a Pipeline: through the one evaluator it is given, each
 * stored Pipeline a request sees once (the one it judges before writing, which the write's first
 * attempt applies to; one a conflict brings; the one written, which the answer reports), so a
 * request is never judged twice on the same state nor on an evaluation of its own making.
 */
import { describe, expect, it } from 'vitest';
import { Authorizer } from '../../../src/approvals/authorizer.js';
import type { AuthorizationClaim, Principal } from '../../../src/auth/identity.js';
import type { CheckResult } from '../../../src/evaluate/decisions.js';
import { PipelineEvaluator } from '../../../src/evaluation/pipeline-evaluator.js';
import { createLogger } from '../../../src/log.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { reconcileRig, rigPipeline } from '../../support/reconcile-rig.js';

const POLICY = { maxAttempts: 3, backoffBaseMs: 10_000, backoffMaxMs: 60_000, claimTimeoutMs: 0 };
const REF = { namespace: 'apps', name: 'app' };

/**
 * prod needs two approvals; staging runs 1.1.0 healthy, prod 1.0.0: prod waits for 1.1.0. With
 * `checks`, prod also names an HTTP check, whose results are those the evaluator is given.
 */
function setup(checks?: CheckResult[]) {
  const rig = reconcileRig({ dev: '1.1.0', staging: '1.1.0', prod: '1.0.0' });
  const gated = rigPipeline();
  const prod = gated.spec.environments[2];
  if (prod === undefined) throw new Error('the rig Pipeline has prod');
  prod.promotion = { strategy: { notification: {} }, approval: { minApprovals: 2 } };
  if (checks !== undefined)
    prod.promotion.checks = [{ name: 'e2e', http: { url: 'https://ci/e2e' } }];
  // A new spec, as the watch would bring it: the catalog takes a spec when the generation moves.
  gated.metadata.generation = 2;
  rig.catalog.upsert(rig.writer.put(gated));
  const results = checks === undefined ? {} : { checks: { resultsFor: () => ({ prod: checks }) } };
  const settings = { policy: POLICY, floors: {}, ...results };
  const real = new PipelineEvaluator(settings, () => rig.clock.now);
  /** Every Pipeline object the door asked the evaluator about, in order. */
  const evaluated: Pipeline[] = [];
  const authorizer = new Authorizer({
    catalog: rig.catalog,
    verified: rig.verified,
    evaluator: {
      evaluate: (pipeline, targets) => {
        evaluated.push(pipeline);
        return real.evaluate(pipeline, targets);
      },
    },
    floors: {},
    status: statusWriterOver(rig.writer),
    events: rig.writer,
    logger: createLogger('silent'),
    now: () => rig.clock.now,
    recheck: () => undefined,
  });
  return { rig, authorizer, evaluated };
}

function person(name: string, jti: string): Principal {
  return { name, kind: 'human', groups: [], jti, expiresAt: Date.UTC(2030, 0, 1) };
}

const approve = (revision: string): AuthorizationClaim => ({ decision: 'approve', revision });

describe('the approval door evaluates each Pipeline it sees once', () => {
  it('a recorded approval: the Pipeline as read (judged, then written to) and as written', async () => {
    const { rig, authorizer, evaluated } = setup();
    const result = await authorizer.submit(REF, 'prod', person('alice', 'j1'), approve('1.1.0'));
    expect(result).toMatchObject({ ok: true, answer: { recorded: true, state: 'waiting' } });
    expect(evaluated).toHaveLength(2);
    expect(evaluated[0]).not.toBe(evaluated[1]);
    expect(evaluated[1]?.status?.environments?.prod?.approvals).toHaveLength(1);
    expect(rig.writer.writes).toBe(1);
  });

  it('the approval that meets the gate costs the same, and its answer says approved', async () => {
    const { authorizer, evaluated } = setup();
    await authorizer.submit(REF, 'prod', person('alice', 'j1'), approve('1.1.0'));
    evaluated.length = 0;
    const result = await authorizer.submit(REF, 'prod', person('bob', 'j2'), approve('1.1.0'));
    expect(result).toMatchObject({ ok: true, answer: { state: 'approved' } });
    expect(evaluated).toHaveLength(2);
  });

  it('a refusal judged before the write evaluates once and writes nothing', async () => {
    const { rig, authorizer, evaluated } = setup();
    const result = await authorizer.submit(REF, 'prod', person('alice', 'j1'), approve('9.9.9'));
    expect(result).toMatchObject({ ok: false, refusal: { reason: 'NotWaiting' } });
    expect(evaluated).toHaveLength(1);
    expect(rig.writer.writes).toBe(0);
  });

  it('a conflict adds one evaluation, of the Pipeline it brings', async () => {
    const { rig, authorizer, evaluated } = setup();
    // Another replica writes the status between this door's read and its write.
    rig.writer.beforeNextWrite(() => {
      const stored = rig.writer.peek('apps', 'app');
      if (stored !== undefined) rig.writer.put({ ...stored, status: { ...stored.status } });
    });
    const result = await authorizer.submit(REF, 'prod', person('alice', 'j1'), approve('1.1.0'));
    expect(result).toMatchObject({ ok: true, answer: { recorded: true } });
    expect(rig.writer.conflicts).toBe(1);
    expect(evaluated).toHaveLength(3);
    expect(new Set(evaluated).size).toBe(3);
  });
});

describe('the approval door judges on the evaluation the reconciler decides with', () => {
  /** The check's pass of 1.1.0, current for the whole test. */
  const passed: CheckResult = {
    index: 0,
    revision: '1.1.0',
    state: 'Passed',
    message: 'HTTP 200',
    expiresAt: Date.UTC(2030, 0, 1),
  };

  it('refuses an approval while a check holds the environment', async () => {
    const { authorizer } = setup([]);
    const result = await authorizer.submit(REF, 'prod', person('alice', 'j1'), approve('1.1.0'));
    expect(result).toMatchObject({ ok: false, refusal: { reason: 'NotWaiting' } });
  });

  it('records it once every check has passed, on the results the evaluator holds', async () => {
    const { rig, authorizer } = setup([passed]);
    const result = await authorizer.submit(REF, 'prod', person('alice', 'j1'), approve('1.1.0'));
    expect(result).toMatchObject({ ok: true, answer: { recorded: true, state: 'waiting' } });
    expect(rig.writer.writes).toBe(1);
  });
});
