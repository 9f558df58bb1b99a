/**
 * What-if against kube-sim: `promotion-gateway what-if` over the stored statuses through an
 * operator's kubeconfig (the table of changes, --all, --json, a bad policy file) and
 * `POST /v1/what-if` on the running gateway through a real socket (its scope, `?at=`, the
 * documented errors), each writing nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWhatIf } from '../../src/cli/what-if.js';
import {
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { tempDir } from '../support/temp-dirs.js';

const NS = 'what-if';
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'promotion-gateway';
let fleet: TestFleet;
let gw: RunningGateway;
let privateKey: CryptoKey;
let dir: string;
let kubeconfig: string;

/** A deny window that holds all the time (a day long, every day). */
const FREEZE = {
  name: 'freeze',
  type: 'Deny',
  cron: '0 0 * * *',
  timeZone: 'UTC',
  duration: 'P1D',
};

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const publicPem = await exportSPKI(pair.publicKey);
  fleet = await startTestFleet();
  gw = await launchGateway(fleet, {
    config: {
      jwt: {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['RS256'],
        publicKeys: [{ value: publicPem }],
      },
    },
  });
  createApp(fleet, NS, { prodPromotion: { approval: { minApprovals: 1 } } });
  await waitSteady(fleet, [gw], NS);
  rollOut(fleet.dev, NS, '6.6.0');
  rollOut(fleet.staging, NS, '6.6.0');
  await gw.gateway.resync();
  await gw.gateway.idle();
  await eventually(() => {
    const prod = pipelineOf(fleet, NS).status?.environments?.staging?.targets?.[0];
    if (prod?.revision !== '6.6.0') throw new Error('staging not stored at 6.6.0 yet');
  });
  dir = tempDir('what-if');
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, fleet.management.kubeconfig());
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

function token(pipelines: string[]): Promise<string> {
  return new SignJWT({ sub: 'viewer', pipelines })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

/** Runs `what-if args...` with a policy file of `policy`; resolves to [exit code, output]. */
async function whatIf(policy: string, args: string[]): Promise<[number, string]> {
  const file = join(dir, `policy-${String(Math.random()).slice(2)}.yaml`);
  writeFileSync(file, policy);
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runWhatIf(['--policy', file, ...args], {
    env: { KUBECONFIG: kubeconfig },
    out,
  });
  return [code, text];
}

const PROPOSAL = `
windows:
  - name: freeze
    type: Deny
    cron: "0 0 * * *"
    timeZone: UTC
    duration: P1D
    environments: [prod]
pipelines:
  - name: ${NS}/podinfo
    environments: [staging]
    promotion:
      soak: { duration: 1h }
`;

describe('promotion-gateway what-if', () => {
  it('prints only the environments whose decision changes, and writes nothing', async () => {
    const before = pipelineOf(fleet, NS).metadata.resourceVersion;
    const [code, text] = await whatIf(PROPOSAL, ['-n', NS]);
    expect(code).toBe(0);
    const rows = text.split('\n').filter((l) => l.startsWith(`${NS}/`));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(
      /podinfo +prod +WaitingApproval \(ApprovalRequired\) +Waiting \(InDenyWindow\) +.*"freeze" \(fleet\)/,
    );
    expect(text).toMatch(
      /1 of 3 environments \(1 Pipelines\) change under the proposed policy at /,
    );
    const [, all] = await whatIf(PROPOSAL, ['-n', NS, '--all']);
    expect(all.split('\n').filter((l) => l.startsWith(`${NS}/`))).toHaveLength(3);
    const [, json] = await whatIf(PROPOSAL, [`${NS}/podinfo`, '--json']);
    const parsed = JSON.parse(json) as {
      changed: number;
      pipelines: { environments: unknown[] }[];
    };
    expect(parsed.changed).toBe(1);
    expect(parsed.pipelines[0]?.environments).toHaveLength(1);
    expect(pipelineOf(fleet, NS).metadata.resourceVersion).toBe(before);
  });

  it('decides at --at: outside a proposed window nothing changes', async () => {
    const lunch = `windows: [{ name: lunch, type: Deny, cron: "0 12 * * *", timeZone: UTC, duration: 1h }]\n`;
    const [inside] = [await whatIf(lunch, ['-n', NS, '--at', '2030-01-02T12:30:00Z'])];
    expect(inside[1]).toMatch(/^1 of 3 environments/m);
    const [, outside] = await whatIf(lunch, ['-n', NS, '--at', '2030-01-02T14:00:00Z']);
    expect(outside).toMatch(/^0 of 3 environments/m);
  });

  it('names every problem of a bad policy file and exits 2', async () => {
    const [code, text] = await whatIf(
      `windows: [{ name: freeze, type: Deny, cron: "0 0 * * *", timeZone: Mars/Olympus, duration: 1h }]\npipelines: [{ promotion: { sok: {} } }]\n`,
      ['-n', NS],
    );
    expect(code).toBe(2);
    expect(text).toMatch(/: \/pipelines\/0: needs name or selector\n/);
    expect(text).toMatch(/: \/pipelines\/0\/promotion\/sok: is not a field here\n/);
    const [windowCode, window] = await whatIf(
      `windows: [{ name: freeze, type: Deny, cron: "0 0 * * *", timeZone: Mars/Olympus, duration: 1h }]\n`,
      ['-n', NS],
    );
    expect(windowCode).toBe(2);
    expect(window).toMatch(/^policy .*: \/windows\/0: timeZone/);
    const [yamlCode, yaml] = await whatIf('windows: [', ['-n', NS]);
    expect([yamlCode, yaml]).toEqual([2, expect.stringMatching(/: not YAML or JSON: /)]);
  });
});

describe('POST /v1/what-if', () => {
  const post = async (body: unknown, jwt: string | undefined, query = '') =>
    fetch(`${gw.url}/v1/what-if${query}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(jwt === undefined ? {} : { authorization: `Bearer ${jwt}` }),
      },
      body: JSON.stringify(body),
    });

  it('answers per Pipeline and environment for the Pipelines the token covers', async () => {
    const jwt = await token([`${NS}/*`]);
    const res = await post({ windows: [{ ...FREEZE, environments: ['prod'] }] }, jwt);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      changed: number;
      pipelines: { namespace: string; environments: { environment: string; changed: boolean }[] }[];
    };
    expect(body.pipelines.map((p) => p.namespace)).toEqual([NS]);
    expect(body.changed).toBe(1);
    expect(body.pipelines[0]?.environments[2]).toMatchObject({
      environment: 'prod',
      current: { decision: 'WaitingApproval', reason: 'ApprovalRequired' },
      proposed: { decision: 'Waiting', reason: 'InDenyWindow' },
      changed: true,
    });
    const elsewhere = await post({}, await token(['elsewhere/*']));
    expect(((await elsewhere.json()) as { pipelines: unknown[] }).pipelines).toEqual([]);
  });

  it('equals the live view under an empty policy', async () => {
    const jwt = await token([`${NS}/*`]);
    const answer = (await (await post({}, jwt)).json()) as {
      changed: number;
      pipelines: { environments: { current: { decision: string; reason: string } }[] }[];
    };
    const view = (await (
      await fetch(`${gw.url}/v1/pipelines/${NS}/podinfo`, {
        headers: { authorization: `Bearer ${jwt}` },
      })
    ).json()) as { decisions: { outcome: string; reason: string }[] };
    expect(answer.changed).toBe(0);
    expect(
      answer.pipelines[0]?.environments.map((e) => [e.current.decision, e.current.reason]),
    ).toEqual(view.decisions.map((d) => [d.outcome, d.reason]));
  });

  it('refuses what it cannot use, with the documented codes', async () => {
    const jwt = await token([`${NS}/*`]);
    const cases: [unknown, string, number, string][] = [
      [{ pipelines: [{ promotion: {} }] }, '', 400, 'InvalidBody'],
      [{ windows: [{ ...FREEZE, timeZone: 'Mars/Olympus' }] }, '', 400, 'InvalidPolicy'],
      [{ pipelines: [{ selector: 'app in (', promotion: {} }] }, '', 400, 'InvalidPolicy'],
      [{}, '?at=tomorrow', 400, 'BadRequest'],
      [{}, '?at=2999-01-01T00:00:00Z', 400, 'BadRequest'],
    ];
    for (const [body, query, status, code] of cases) {
      const res = await post(body, jwt, query);
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([status, code]);
    }
    expect((await post({}, undefined)).status).toBe(401);
  });
});
