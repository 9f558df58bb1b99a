/**
 * Signed train approval statements: one verifies into its approver's principal and the
 * combination it approves when it names the URL's train and environment; its digest must be that
 * of the members it names; it never passes for a Pipeline's approval, nor one for it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkStatement } from '../../../src/auth/statement.js';
import {
  checkTrainStatement,
  membersDigest,
  signTrainStatement,
  trainClaimsOf,
  type TrainStatementClaims,
} from '../../../src/auth/train-statement.js';
import { combinationDigest } from '../../../src/trains/combination-digest.js';
import { approver, statement, type TestApprover } from '../../support/authorizations.js';

const NOW = Date.UTC(2026, 11, 7, 10, 0, 0);
const MEMBERS = { api: '2.4.0', web: '5.1.0' };
const TARGET = { train: { namespace: 'shop', name: 'release' }, environment: 'prod' };

async function setup() {
  const alice = await approver('alice', ['sre']);
  const config = {
    maxStatementLifetimeSeconds: 600,
    clockToleranceSeconds: 5,
    approvers: [
      { name: 'alice', publicKeys: [alice.publicKeyPem], oidcSubjects: [], groups: ['sre'] },
    ],
  };
  return { alice, config };
}

function sign(who: TestApprover, claims: Partial<TrainStatementClaims> = {}): Promise<string> {
  const iat = Math.floor(NOW / 1000);
  const base: TrainStatementClaims = {
    ...{ sub: who.name, iat, exp: iat + 300, jti: randomUUID(), decision: 'approve' },
    ...{ train: 'shop/release', environment: 'prod', members: MEMBERS },
    combinationDigest: membersDigest(MEMBERS),
  };
  return signTrainStatement({ ...base, ...claims }, who.privateKey, 'EdDSA');
}

describe('checkTrainStatement', () => {
  it('verifies into the approver and the combination, keeping the statement', async () => {
    const { alice, config } = await setup();
    const jws = await sign(alice, { comment: 'e2e green' });
    const checked = await checkTrainStatement(config, jws, TARGET, NOW);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value.principal).toMatchObject({
      name: 'alice',
      kind: 'human',
      groups: ['sre'],
    });
    expect(checked.value.trainClaim).toEqual({
      combinationDigest: combinationDigest(MEMBERS),
      decision: 'approve',
      comment: 'e2e green',
      statement: jws,
    });
  });

  it('names the combination as the train does', () => {
    expect(membersDigest(MEMBERS)).toBe(combinationDigest(MEMBERS));
    expect(membersDigest({ web: '5.1.0', api: '2.4.0' })).toBe(combinationDigest(MEMBERS));
  });

  it('refuses a statement for another train or environment', async () => {
    const { alice, config } = await setup();
    for (const claims of [{ train: 'shop/other' }, { environment: 'staging' }]) {
      const checked = await checkTrainStatement(config, await sign(alice, claims), TARGET, NOW);
      expect(checked.ok ? 'ok' : checked.reason).toBe('StatementForAnotherTarget');
    }
  });

  it('refuses a digest that is not the members', async () => {
    const { alice, config } = await setup();
    const other = membersDigest({ api: '2.4.0', web: '5.0.0' });
    const checked = await checkTrainStatement(
      config,
      await sign(alice, { combinationDigest: other }),
      TARGET,
      NOW,
    );
    expect(checked.ok ? 'ok' : checked.reason).toBe('Malformed');
  });

  it('never takes an approval statement, and an approval door never takes it', async () => {
    const { alice, config } = await setup();
    const approval = await statement(alice, {
      pipeline: 'shop/api',
      environment: 'prod',
      revision: '2.4.0',
    });
    const asTrain = await checkTrainStatement(config, approval, TARGET, Date.now());
    expect(asTrain.ok ? 'ok' : asTrain.reason).toBe('WrongType');
    const signer = { name: 'alice', publicKeys: [alice.publicKeyPem] };
    const policy = { maxLifetimeSeconds: 600, clockToleranceSeconds: 5 };
    const asApproval = await checkStatement(await sign(alice), signer, policy, NOW);
    expect(asApproval.ok ? 'ok' : asApproval.reason).toBe('WrongType');
  });
});

describe('trainClaimsOf', () => {
  const base = {
    ...{ sub: 'alice', iat: 1, exp: 2, jti: 'j', train: 'shop/release', environment: 'prod' },
    ...{ members: MEMBERS, combinationDigest: membersDigest(MEMBERS), decision: 'approve' },
  };
  it.each([
    ['a break-glass', { decision: 'break-glass' }],
    ['no members', { members: {} }],
    ['a member without a revision', { members: { api: '' } }],
    ['members as a list', { members: ['api'] }],
    ['a digest of another form', { combinationDigest: 'sha256:abc' }],
  ])('refuses %s', (_, change) => {
    expect(trainClaimsOf({ ...base, ...change })).toBeUndefined();
  });
  it('takes the whole shape', () => {
    expect(trainClaimsOf(base)).toMatchObject({ train: 'shop/release', members: MEMBERS });
  });
});
