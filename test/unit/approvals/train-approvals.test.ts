/**
 * One approval of a train's combination, judged whole before anything is recorded: a release
 * other than the one approved (CombinationChanged), one not Waiting, a member whose gate does not
 * allow the approver (Forbidden) and a train whose members have no gate record nothing; otherwise
 * each gated member's approval goes through the Pipeline's own recording, bound to the
 * combination, and a statement sent again completes the members an earlier call did not reach.
 */
import { describe, expect, it } from 'vitest';
import type { AuthorizationResult } from '../../../src/approvals/authorizer.js';
import { TrainApprovals } from '../../../src/approvals/train-approvals.js';
import type { AuthorizationClaim, Principal } from '../../../src/auth/identity.js';
import { pipelineId, type PipelineId, type PipelineRef } from '../../../src/pipeline/id.js';
import type { AuthorizationRecord, Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { combinationDigest } from '../../../src/trains/combination-digest.js';
import type { TrainRelease } from '../../../src/trains/train-resource.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const MEMBERS = { api: '2.4.0', web: '5.1.0' };
const DIGEST = combinationDigest(MEMBERS);
const ALICE: Principal = { name: 'alice', kind: 'human', groups: [], jti: 'j-1' };
const CLAIM = { combinationDigest: DIGEST, decision: 'approve' as const, statement: 'jws' };

function member(name: string, prod: Pipeline['spec']['environments'][number]['promotion']) {
  const base = samplePipeline();
  const environments = base.spec.environments.map((e) =>
    e.name === 'prod'
      ? { ...e, ...(prod === undefined ? { promotion: undefined } : { promotion: prod }) }
      : e,
  );
  return {
    ...base,
    metadata: { ...base.metadata, name, namespace: 'shop' },
    spec: { ...base.spec, environments },
  };
}

const MANUAL = { manual: true, strategy: { notification: {} } };

function rig(options: {
  release?: Partial<TrainRelease> | undefined;
  pipelines?: Record<string, Pipeline>;
  answer?: (ref: PipelineRef) => AuthorizationResult;
}) {
  const pipelines = options.pipelines ?? { api: member('api', MANUAL), web: member('web', MANUAL) };
  const release: TrainRelease | undefined =
    options.release === undefined
      ? undefined
      : {
          digest: DIGEST,
          members: MEMBERS,
          state: 'Waiting',
          startedAt: '2026-12-07T10:00:00Z',
          ...options.release,
        };
  const submitted: { ref: PipelineRef; claim: AuthorizationClaim }[] = [];
  const replaced: unknown[] = [];
  const approvals = new TrainApprovals({
    trains: {
      getTrain: () =>
        Promise.resolve({
          apiVersion: 'pipelines.promotion-gateway.dev/v1alpha1',
          kind: 'PromotionTrain',
          metadata: { namespace: 'shop', name: 'release' },
          spec: { members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }] },
          status: {
            members: Object.keys(pipelines),
            environments: [{ name: 'prod', ...(release === undefined ? {} : { release }) }],
          },
        }),
    },
    book: { replace: (t) => void replaced.push(t) },
    candidates: () =>
      Object.values(pipelines).map((p) => ({
        name: p.metadata.name,
        environments: p.spec.environments.map((e) => e.name),
      })),
    catalog: {
      get: (id: PipelineId) => Object.values(pipelines).find((p) => pipelineId(p.metadata) === id),
    },
    floors: {},
    authorizer: {
      submit: (ref, _env, _principal, claim) => {
        submitted.push({ ref, claim });
        return Promise.resolve(
          options.answer?.(ref) ?? {
            ok: true,
            answer: {
              ...{ recorded: true, pipeline: pipelineId(ref), environment: 'prod' },
              ...{ revision: claim.revision, principal: 'alice', decision: 'approve' },
              state: 'waiting',
            },
          },
        );
      },
    },
    now: () => Date.parse('2026-12-07T10:01:00Z'),
  });
  const submit = (claim = CLAIM, principal = ALICE) =>
    approvals.submit({ namespace: 'shop', name: 'release' }, 'prod', principal, claim);
  return { submit, submitted, replaced };
}

describe('a train approval', () => {
  it('records the combination on every gated member, each its own revision, bound to the digest', async () => {
    const { submit, submitted, replaced } = rig({ release: {} });
    const result = await submit();
    expect(result.ok && result.answer.members.map((m) => [m.pipeline, m.outcome])).toEqual([
      ['shop/api', 'recorded'],
      ['shop/web', 'recorded'],
    ]);
    expect(submitted.map((s) => [s.ref.name, s.claim])).toEqual([
      [
        'api',
        { decision: 'approve', combinationDigest: DIGEST, statement: 'jws', revision: '2.4.0' },
      ],
      [
        'web',
        { decision: 'approve', combinationDigest: DIGEST, statement: 'jws', revision: '5.1.0' },
      ],
    ]);
    // The evaluations behind the records see the release as read.
    expect(replaced).toHaveLength(1);
  });

  it.each([
    ['no release yet', undefined, 'CombinationChanged'],
    [
      'another combination',
      { digest: combinationDigest({ api: '2.3.0', web: '5.1.0' }) },
      'CombinationChanged',
    ],
    ['the release already Promoting', { state: 'Promoting' as const }, 'NotWaiting'],
  ])('records nothing for %s', async (_, release, reason) => {
    const { submit, submitted } = rig({ release });
    const result = await submit();
    expect(result.ok ? 'ok' : result.refusal.reason).toBe(reason);
    expect(submitted).toEqual([]);
  });

  it('names the release now when the combination changed', async () => {
    const other = combinationDigest({ api: '2.3.0', web: '5.1.0' });
    const result = await rig({ release: { digest: other } }).submit();
    expect(!result.ok && 'detail' in result.refusal && result.refusal.detail).toContain(other);
  });

  it("records nothing when one member's gate does not allow the approver", async () => {
    const strict = { ...MANUAL, manual: false, approval: { approvers: ['bob'] } };
    const pipelines = { api: member('api', MANUAL), web: member('web', strict) };
    const { submit, submitted } = rig({ release: {}, pipelines });
    const result = await submit();
    expect(result.ok ? 'ok' : result.refusal.reason).toBe('Forbidden');
    expect(!result.ok && 'detail' in result.refusal && result.refusal.detail).toContain('shop/web');
    expect(submitted).toEqual([]);
  });

  it('skips a member without a gate, and refuses when no member has one', async () => {
    const open = { strategy: { notification: {} } };
    const some = rig({
      release: {},
      pipelines: { api: member('api', MANUAL), web: member('web', open) },
    });
    const result = await some.submit();
    expect(result.ok && result.answer.members.map((m) => m.outcome)).toEqual([
      'recorded',
      'notGated',
    ]);
    const none = rig({
      release: {},
      pipelines: { api: member('api', open), web: member('web', open) },
    });
    const refused = await none.submit();
    expect(refused.ok ? 'ok' : refused.refusal.reason).toBe('NotWaiting');
    expect(none.submitted).toEqual([]);
  });

  it('completes a call cut short: the member holding the statement answers recordedBefore', async () => {
    const held: AuthorizationRecord = {
      ...{ principal: 'alice', kind: 'human', decision: 'approve', revision: '2.4.0' },
      ...{ time: '2026-12-07T10:00:30Z', jti: 'j-1', combinationDigest: DIGEST },
    };
    const api = {
      ...member('api', MANUAL),
      status: { environments: { prod: { approvals: [held] } } },
    };
    const { submit } = rig({
      release: {},
      pipelines: { api, web: member('web', MANUAL) },
      answer: (ref) =>
        (ref.name === 'api'
          ? { ok: false, refusal: { reason: 'Replayed' } }
          : undefined) as AuthorizationResult,
    });
    const result = await submit();
    expect(result.ok && result.answer.members.map((m) => m.outcome)).toEqual([
      'recordedBefore',
      'recorded',
    ]);
  });

  it('is a replay once every gated member holds the statement, whatever the release', async () => {
    const held = (revision: string): AuthorizationRecord => ({
      ...{ principal: 'alice', kind: 'human', decision: 'approve', revision },
      ...{ time: '2026-12-07T10:00:30Z', jti: 'j-1', combinationDigest: DIGEST },
    });
    const withRecord = (name: string, revision: string) => ({
      ...member(name, MANUAL),
      status: { environments: { prod: { approvals: [held(revision)] } } },
    });
    const pipelines = { api: withRecord('api', '2.4.0'), web: withRecord('web', '5.1.0') };
    const { submit, submitted } = rig({ release: { state: 'Succeeded' }, pipelines });
    const result = await submit();
    expect(result.ok ? 'ok' : result.refusal.reason).toBe('Replayed');
    expect(submitted).toEqual([]);
  });
});
