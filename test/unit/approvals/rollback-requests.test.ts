/**
 * What a rollback request is judged on before anything is written, and the lift of a hold: the
 * revision to go back to (asked, or the previous one run healthy), the refusals with their
 * registered codes, a rollback statement's exact shape, and a lift that changes only the holds
 * on its revision.
 */
import { describe, expect, it } from 'vitest';
import { rollbackTarget } from '../../../src/approvals/rollbacks.js';
import { liftChange } from '../../../src/approvals/hold-lifts.js';
import { rollbackClaimsOf } from '../../../src/auth/rollback-statement.js';
import { ErrorCodes } from '../../../src/ingress/http-errors.js';
import type { Pipeline, RevisionHold } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const T = '2026-03-04T05:06:07Z';
const verified = ['6.4.0', '6.5.0', '6.6.0'].map((revision) => ({ revision, time: T }));

function withProd(holds: RevisionHold[] = []): Pipeline {
  return samplePipeline({ environments: { prod: { verified, holds } } });
}

describe('the revision a rollback goes to', () => {
  it('is the one asked for when prod ran it healthy', () => {
    expect(rollbackTarget(withProd(), 'prod', '6.6.0', '6.4.0')).toEqual({
      ok: true,
      revision: '6.4.0',
    });
  });

  it('is the previous one run healthy, skipping held ones, when none is asked for', () => {
    expect(rollbackTarget(withProd(), 'prod', '6.6.0', undefined)).toEqual({
      ok: true,
      revision: '6.5.0',
    });
    const held = withProd([{ revision: '6.5.0', reason: 'RolledBack', by: 'a', time: T }]);
    expect(rollbackTarget(held, 'prod', '6.6.0', undefined)).toEqual({
      ok: true,
      revision: '6.4.0',
    });
  });

  it.each([
    ['a revision never run healthy', '6.6.0', '1.0.0', 'RevisionNotRun'],
    ['the revision running now', '6.6.0', '6.6.0', 'RevisionNotRun'],
  ])('refuses %s (%s) with a registered code', (_, running, asked, code) => {
    const result = rollbackTarget(withProd(), 'prod', running, asked);
    expect(result).toMatchObject({ ok: false, refusal: { reason: code } });
    expect(ErrorCodes).toHaveProperty(code);
  });

  it('refuses when there is nothing to go back to', () => {
    const only = samplePipeline({
      environments: { prod: { verified: [{ revision: '6.6.0', time: T }] } },
    });
    const result = rollbackTarget(only, 'prod', '6.6.0', undefined);
    expect(result).toMatchObject({ ok: false, refusal: { reason: 'NoRollbackTarget' } });
    expect(ErrorCodes).toHaveProperty('NoRollbackTarget');
  });
});

describe('a rollback statement', () => {
  const base = { sub: 'alice', iat: 1, exp: 2, jti: 'j', pipeline: 'a/b', environment: 'prod' };

  it('has exactly its shape: a reason, an optional revision', () => {
    expect(rollbackClaimsOf({ ...base, reason: 'r' })).toEqual({ ...base, reason: 'r' });
    expect(rollbackClaimsOf({ ...base, reason: 'r', revision: '1' })).toMatchObject({
      revision: '1',
    });
    expect(rollbackClaimsOf(base)).toBeUndefined();
    expect(rollbackClaimsOf({ ...base, reason: '' })).toBeUndefined();
    expect(rollbackClaimsOf({ ...base, reason: 'r', revision: 7 })).toBeUndefined();
    expect(rollbackClaimsOf({ ...base, environment: undefined, reason: 'r' })).toBeUndefined();
  });
});

describe('lifting a hold', () => {
  const hold = (revision: string, extra: Partial<RevisionHold> = {}): RevisionHold => ({
    revision,
    reason: 'RolledBack',
    by: 'alice',
    time: T,
    ...extra,
  });

  it('marks the holds on its revision lifted and leaves the others', () => {
    const stored = withProd([hold('6.6.0'), hold('6.5.0')]);
    const result = liftChange('prod', '6.6.0', 'bob', Date.parse(T))(stored);
    expect('write' in result && result.verdict).toBe(1);
    const holds = 'write' in result ? result.write.environments?.prod?.holds : undefined;
    expect(holds).toEqual([{ ...hold('6.6.0'), liftedAt: T, liftedBy: 'bob' }, hold('6.5.0')]);
  });

  it('writes nothing when the revision is not held (or lifted already)', () => {
    const stored = withProd([hold('6.6.0', { liftedAt: T, liftedBy: 'bob' })]);
    expect(liftChange('prod', '6.6.0', 'bob', 0)(stored)).toEqual({ keep: 0 });
    expect(liftChange('prod', '1.0.0', 'bob', 0)(withProd())).toEqual({ keep: 0 });
  });
});
