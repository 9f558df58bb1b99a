/**
 * Text people write and the dates they give, through the real gateway's sockets on kube-sim:
 * a halt reason or an approval comment holding a control character (ESC, NUL, a C1 CSI) or a
 * bidirectional override or isolate is refused 400 InvalidBody naming the field, at the JSON
 * doors and in signed statements alike, and nothing is recorded; a date the calendar does not
 * have (2099-02-30) is refused the same way at every door, never rolled over to another day.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHaltStatement, type HaltStatementClaims } from '../../src/auth/halt-statement.js';
import type { HaltRecord } from '../../src/pipeline/pipeline-resource.js';
import {
  approver,
  approverConfig,
  postStatement,
  startIssuer,
  statement,
  type TestApprover,
  type TestIssuer,
} from '../support/authorizations.js';
import {
  createApp,
  launchGateway,
  pipelineOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const NS = 'person-text';
const RULE = 'must not contain control or invisible formatting characters';
const DATE_RULE = 'must be an RFC 3339 date-time on a calendar date that exists';

let fleet: TestFleet;
let sso: TestIssuer;
let carol: TestApprover;
let gateway: RunningGateway;

beforeAll(async () => {
  [sso, carol] = await Promise.all([startIssuer('https://sso.example.com'), approver('carol')]);
  fleet = await startTestFleet();
  createApp(fleet, NS);
  gateway = await launchGateway(fleet, {
    instanceId: 'person-text',
    config: {
      approvals: {
        approvers: [
          { name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] },
          ...approverConfig([carol]),
        ],
        oidc: { issuer: sso.issuer, audience: 'promotion-gateway', jwksUrl: sso.jwksUrl },
      },
    },
  });
  await waitSteady(fleet, [gateway], NS);
}, 60_000);
afterAll(async () => {
  await gateway.close();
  await fleet.close();
  await sso.close();
});

const bob = () => sso.token({ sub: 'bob-sub' });
const haltsOf = (): HaltRecord[] => pipelineOf(fleet, NS).status?.halts ?? [];

async function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await bob()}` },
    body: JSON.stringify(body),
  });
}

async function postHaltStatement(claims: Partial<HaltStatementClaims>): Promise<Response> {
  const iat = Math.floor(Date.now() / 1000);
  const base = { sub: 'carol', iat, exp: iat + 300, jti: randomUUID(), action: 'halt' as const };
  const jws = await signHaltStatement({ ...base, ...claims }, carol.privateKey, 'EdDSA');
  return fetch(`${gateway.url}/v1/halts`, {
    method: 'POST',
    headers: { 'content-type': 'application/jose' },
    body: jws,
  });
}

/** The answer's status and error body. */
async function answer(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { code?: string; message?: string };
  return { status: res.status, code: body.code ?? '', message: body.message ?? '' };
}

const UNSAFE_REASONS: [string, string][] = [
  ['ESC', 'incident 42\u001b[2J\u001b[31m all clear'],
  ['NUL', 'incident\u0000 42'],
  ['C1 CSI', 'incident \u009b31m 42'],
  ['right-to-left override', 'incident \u202e24 tnedicni'],
  ['isolate', 'incident \u2067 42 \u2069'],
  ['zero-width space', 'inci\u200bdent 42'],
];

describe('text people write, at every door', () => {
  it.each(UNSAFE_REASONS)(
    'refuses a halt reason holding %s and records nothing',
    async (_, reason) => {
      const one = await answer(await postJson(`/v1/pipelines/${NS}/podinfo/halts`, { reason }));
      expect(one).toMatchObject({ status: 400, code: 'InvalidBody' });
      expect(one.message).toBe(`Invalid body: /reason ${RULE}.`);
      const wide = await answer(await postJson('/v1/halts', { selector: `x=${NS}`, reason }));
      expect(wide).toMatchObject({ status: 400, code: 'InvalidBody' });
      expect(wide.message).toBe(`Invalid body: /reason ${RULE}.`);
      const signed = await answer(await postHaltStatement({ pipeline: `${NS}/podinfo`, reason }));
      expect(signed).toMatchObject({ status: 400, code: 'InvalidBody' });
      expect(signed.message).toMatch(
        new RegExp(`^Invalid body: the statement’s reason ${RULE} \\(U\\+[0-9A-F]{4}\\)\\.$`),
      );
      expect(haltsOf()).toEqual([]);
    },
  );

  it('refuses an approval comment holding them, through SSO and in a signed statement', async () => {
    const comment = 'LGTM \u202egnp.exe';
    const body = { revision: '6.6.0', decision: 'approve', comment };
    const sso = await answer(
      await postJson(`/v1/pipelines/${NS}/podinfo/environments/prod/approvals`, body),
    );
    expect(sso).toEqual({
      status: 400,
      code: 'InvalidBody',
      message: `Invalid body: /comment ${RULE}.`,
    });
    const jws = await statement(carol, {
      pipeline: `${NS}/podinfo`,
      environment: 'prod',
      revision: '6.6.0',
      comment,
    });
    const signed = await answer(await postStatement(gateway.url, NS, 'prod', jws));
    expect(signed).toEqual({
      status: 400,
      code: 'InvalidBody',
      message: `Invalid body: comment ${RULE} (U+202E).`,
    });
    expect(pipelineOf(fleet, NS).status?.environments?.prod?.approvals ?? []).toEqual([]);
  });

  it('keeps text with joiners, accents and other scripts as written', async () => {
    const reason = 'incident 42: caf\u00e9 \u05e9\u05dc\u05d5\u05dd \ud83d\udc69\u200d\ud83d\udcbb';
    const res = await postJson(`/v1/pipelines/${NS}/podinfo/halts`, { reason });
    expect(res.status).toBe(201);
    const { halt } = (await res.json()) as { halt: HaltRecord };
    expect(halt.reason).toBe(reason);
    const lifted = await fetch(`${gateway.url}/v1/pipelines/${NS}/podinfo/halts/${halt.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${await bob()}` },
    });
    expect(lifted.status).toBe(200);
  });
});

describe('dates, at every door', () => {
  it.each([
    '2099-02-30T00:00:00Z',
    '2100-02-29T12:00:00Z',
    '2099-04-31T08:00:00+02:00',
    '2099-01-01T24:00:00Z',
  ])('refuses %s in a signed halt statement as at the JSON door', async (date) => {
    const signed = await answer(
      await postHaltStatement({ pipeline: `${NS}/podinfo`, reason: 'x', haltExpiresAt: date }),
    );
    expect(signed).toMatchObject({ status: 400, code: 'InvalidBody' });
    expect(signed.message).toContain(`the statement’s haltExpiresAt ${DATE_RULE}`);
    const json = await answer(
      await postJson(`/v1/pipelines/${NS}/podinfo/halts`, { reason: 'x', expiresAt: date }),
    );
    expect(json).toMatchObject({ status: 400, code: 'InvalidBody' });
    expect(json.message).toContain(`/expiresAt ${DATE_RULE}`);
    expect(haltsOf().filter((h) => h.liftedAt === undefined)).toEqual([]);
  });

  it('takes a leap day that exists, and stores it as given', async () => {
    const res = await postHaltStatement({
      pipeline: `${NS}/podinfo`,
      reason: 'leap',
      haltExpiresAt: '2096-02-29T00:00:00Z',
    });
    expect(res.status).toBe(201);
    const { halt } = (await res.json()) as { halt: HaltRecord };
    expect(halt.expiresAt).toBe('2096-02-29T00:00:00Z');
  });
});
