/**
 * One signed approval of a release train's combination, end to end on kube-sim, with one gateway
 * and with two replicas: three members (web after api), prod gated by an approval on each. The
 * combination verified together in staging waits in prod; an approval of another combination is
 * refused (409 CombinationChanged) and records nothing; one approval of the combination is
 * recorded on every member, the release goes Promoting, and every member is promoted once, api
 * before web; the PromotionAlert subscribed to the namespace is told the release waits
 * (TrainWaiting, with the digest to approve), then TrainPromoted once. The same statement a
 * second time is a replay. The train door `GET /v1/trains/{ns}/{name}` shows the release waiting
 * to a token covering every member (404 to one that does not), and `approvals sign --train` with
 * no `--members` signs and sends what it shows.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { exportPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApprovals } from '../../src/cli/approvals.js';
import type { TrainAnswer } from '../../src/ingress/train-routes.js';
import type { AuthorizationRecord } from '../../src/pipeline/pipeline-resource.js';
import { combinationDigest } from '../../src/trains/combination-digest.js';
import {
  approver,
  approverConfig,
  postTrainStatement,
  trainStatement,
  type TestApprover,
} from '../support/authorizations.js';
import {
  eventually,
  launchGateway,
  PIPELINE_API,
  startTestFleet,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { NotifyReceiver, subscribeAlert } from '../support/notify-receiver.js';
import { readTokens, type ReadTokens } from '../support/preview.js';
import { tempDir } from '../support/temp-dirs.js';
import {
  applyTrain,
  createTrainApps,
  promotionsInto,
  rollApp,
  trainStatus,
} from '../support/train-rig.js';

const APPS = ['api', 'web', 'worker'] as const;
const WAIT = { timeoutMs: 20_000 };

describe.each([1, 2])('one approval of a train combination with %i replica(s)', (count) => {
  let fleet: TestFleet;
  let replicas: RunningGateway[];
  let alice: TestApprover;
  let tokens: ReadTokens;
  const alerts = new NotifyReceiver();

  beforeAll(async () => {
    [fleet, alice, tokens] = await Promise.all([
      startTestFleet(),
      approver('alice'),
      readTokens(),
      alerts.start(),
    ]);
    alerts.up = true;
    const approvals = { approvers: approverConfig([alice]) };
    const notifications = { intervalMs: 100, allowedUrlPrefixes: [alerts.url] };
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `replica-${String(i)}`,
          config: { approvals, notifications, jwt: tokens.config },
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all([fleet.close(), alerts.close()]);
  });

  async function resync(): Promise<void> {
    await Promise.all(replicas.map((r) => r.gateway.resync()));
  }

  const release = (ns: string) =>
    trainStatus(fleet, ns, 'release')?.environments?.find((e) => e.name === 'prod')?.release;

  /** The train events the receiver accepted, as [type, revision], in arrival order. */
  function told(): [string, string][] {
    return alerts.accepted.map((a) => {
      const body = JSON.parse(a.body) as { type: string; data: { revision: string } };
      return [body.type, body.data.revision];
    });
  }

  function prodApprovals(ns: string, app: string): AuthorizationRecord[] {
    const object = fleet.management.get(PIPELINE_API, 'Pipeline', ns, app) as
      | { status?: { environments?: Record<string, { approvals?: AuthorizationRecord[] }> } }
      | undefined;
    return object?.status?.environments?.prod?.approvals ?? [];
  }

  it('promotes the combination with one approval, api before web, each once', async () => {
    const ns = `train-approve-${String(count)}`;
    createTrainApps(fleet, ns, APPS, { approval: { minApprovals: 1 } });
    applyTrain(fleet, ns, 'release', {
      members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }, { name: 'worker' }],
      environments: ['prod'],
    });
    subscribeAlert(fleet.management, ns, alerts.url, [
      'TrainWaiting',
      'TrainPromoted',
      'TrainFailed',
    ]);
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ state: 'Succeeded', reason: 'Arrived' });
    }, WAIT);
    for (const env of ['dev', 'staging'])
      for (const app of APPS) rollApp(fleet, ns, env, app, '6.6.0');
    await resync();
    const members = { api: '6.6.0', web: '6.6.0', worker: '6.6.0' };
    const digest = combinationDigest(members);
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Waiting', reason: 'MemberGates' });
    }, WAIT);
    // The receiver is told what the release waits for: the combination an approval signs.
    await eventually(() => {
      expect(told()).toContainEqual(['train.waiting', digest]);
    }, WAIT);

    // The door answers on the replica that does not write the train when there are two.
    const door = replicas[count - 1]?.url ?? '';
    const train = `${ns}/release`;

    // Another combination (what prod runs now) is not the release waiting: nothing is recorded.
    const stale = { api: '6.5.0', web: '6.5.0', worker: '6.5.0' };
    const refused = await postTrainStatement(
      door,
      train,
      'prod',
      await trainStatement(alice, { train, environment: 'prod', members: stale }),
    );
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { code: string; message: string };
    expect(body.code).toBe('CombinationChanged');
    expect(body.message).toContain(digest);
    for (const app of APPS) expect(prodApprovals(ns, app)).toEqual([]);
    expect(release(ns)?.state).toBe('Waiting');

    // One approval of the combination: recorded on every member, bound to its digest.
    const jws = await trainStatement(alice, { train, environment: 'prod', members });
    const answered = await postTrainStatement(door, train, 'prod', jws);
    expect(answered.status).toBe(202);
    const answer = (await answered.json()) as {
      combinationDigest: string;
      members: { pipeline: string; outcome: string; state?: string }[];
    };
    expect(answer.combinationDigest).toBe(digest);
    expect(answer.members.map((m) => [m.pipeline, m.outcome])).toEqual(
      APPS.map((app) => [`${ns}/${app}`, 'recorded']),
    );
    for (const app of APPS) {
      const records = prodApprovals(ns, app);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        principal: 'alice',
        revision: '6.6.0',
        decision: 'approve',
        combinationDigest: digest,
        statement: jws,
      });
    }

    // The release starts; api and worker go first, web once api runs its revision in prod.
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Promoting' });
      expect(
        promotionsInto(fleet, ns, 'prod')
          .map(([app]) => app)
          .sort(),
      ).toEqual(['api', 'worker']);
    }, WAIT);
    rollApp(fleet, ns, 'prod', 'api', '6.6.0');
    rollApp(fleet, ns, 'prod', 'worker', '6.6.0');
    await resync();
    await eventually(() => {
      expect(promotionsInto(fleet, ns, 'prod').map(([app]) => app)).toContain('web');
    }, WAIT);
    rollApp(fleet, ns, 'prod', 'web', '6.6.0');
    await resync();
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Succeeded' });
    }, WAIT);
    const promoted = promotionsInto(fleet, ns, 'prod');
    expect(promoted).toEqual([
      expect.arrayContaining([expect.any(String), '6.6.0']),
      expect.arrayContaining([expect.any(String), '6.6.0']),
      ['web', '6.6.0'],
    ]);

    // The receiver is told once that the combination arrived, after its wait.
    await eventually(() => {
      expect(told().filter(([type]) => type === 'train.promoted')).toEqual([
        ['train.promoted', digest],
      ]);
    }, WAIT);
    expect(told().at(-1)).toEqual(['train.promoted', digest]);

    // The same statement again is a replay, on either replica.
    const again = await postTrainStatement(replicas[0]?.url ?? '', train, 'prod', jws);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('Replayed');
  });

  it('shows the release waiting at the train door, and the CLI signs it with no --members', async () => {
    const ns = `train-door-${String(count)}`;
    createTrainApps(fleet, ns, ['api', 'web'], { approval: { minApprovals: 1 } });
    applyTrain(fleet, ns, 'release', {
      members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }],
      environments: ['prod'],
    });
    await resync();
    for (const env of ['dev', 'staging'])
      for (const app of ['api', 'web']) rollApp(fleet, ns, env, app, '6.6.0');
    await resync();
    const members = { api: '6.6.0', web: '6.6.0' };
    const digest = combinationDigest(members);
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Waiting' });
    }, WAIT);

    // The replica that does not write the train shows it once it has listed it again.
    const door = replicas[count - 1]?.url ?? '';
    const token = await tokens.token([`${ns}/*`]);
    const get = (bearer?: string) =>
      fetch(`${door}/v1/trains/${ns}/release`, {
        headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
      });
    const shown = await eventually(async () => {
      const res = await get(token);
      expect(res.status).toBe(200);
      const answer = (await res.json()) as TrainAnswer;
      expect(answer.environments.find((e) => e.name === 'prod')?.release).toMatchObject({
        digest,
        members,
        state: 'Waiting',
      });
      return answer;
    }, WAIT);
    expect(shown.members).toEqual(['api', 'web']);
    // A token that covers only one member is answered as for a train that does not exist.
    expect((await get(await tokens.token([`${ns}/api`]))).status).toBe(404);
    expect((await get(await tokens.token([`${ns}/nope`]))).status).toBe(404);
    expect((await get()).status).toBe(401);
    expect(
      (
        await fetch(`${door}/v1/trains/${ns}/absent`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(404);

    const dir = tempDir('train-door-');
    const key = join(dir, 'alice.key.pem');
    await writeFile(key, await exportPKCS8(alice.privateKey), { mode: 0o600 });
    const out = new PassThrough();
    let printed = '';
    out.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const code = await runApprovals(
      [
        'sign',
        ...['--name', 'alice', '--key', key, '--train', `${ns}/release`, '--env', 'prod'],
        ...['--send', door],
      ],
      { PROMOTION_GATEWAY_TOKEN: token },
      out,
    );
    expect(printed).toContain('members api=6.6.0,web=6.6.0');
    expect(printed).toContain(`combination ${digest}`);
    expect(code).toBe(0);
    for (const app of ['api', 'web'])
      expect(prodApprovals(ns, app)).toEqual([
        expect.objectContaining({
          principal: 'alice',
          revision: '6.6.0',
          combinationDigest: digest,
        }),
      ]);
    await eventually(() => {
      expect(release(ns)).toMatchObject({ digest, state: 'Promoting' });
    }, WAIT);
  });
});
