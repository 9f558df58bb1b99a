/**
 * An approver's stop-the-line from the command line against the real gateway on kube-sim, with
 * one replica and with two: `halts sign --send` halts prod of one Pipeline through one replica
 * (201, recorded in the status with the reason and the statement), `halts lift --send` lifts it
 * through the other (200), each signed with a key made by `approvals keygen`; across three
 * shards, one statement sent to every shard halts the selector's Pipelines in each shard that
 * has some (the others answer 404), under one halt id, and one lift frees them all.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApprovals } from '../../src/cli/approvals.js';
import { runHalts } from '../../src/cli/halts.js';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { tempDir } from '../support/temp-dirs.js';

let fleet: TestFleet;
let key: string;
let pub: string;

beforeAll(async () => {
  fleet = await startTestFleet();
  const dir = tempDir('cli-halts-');
  expect((await cli(runApprovals, 'keygen', '--name', 'carol', '--out', dir)).code).toBe(0);
  key = join(dir, 'carol.key.pem');
  pub = await readFile(join(dir, 'carol.pub.pem'), 'utf8');
});
afterAll(async () => {
  await fleet.close();
});

async function cli(runner: typeof runHalts, ...args: string[]) {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runner(args, {}, out);
  return { code, out: text };
}

/** The status code and JSON body the command printed for the gateway's answer. */
function answer(out: string): { status: number; body: { halt?: { id?: string } } } {
  const space = out.indexOf(' ');
  return { status: Number(out.slice(0, space)), body: JSON.parse(out.slice(space + 1)) as never };
}

describe.each([1, 2])('halts from the command line, %i replica(s)', (count) => {
  let replicas: RunningGateway[] = [];
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
  });

  it('halts prod through one replica and lifts it through the other', async () => {
    const ns = `cli-halts-${String(count)}`;
    createApp(fleet, ns);
    const approvals = { approvers: [{ name: 'carol', publicKeys: [{ value: pub }], groups: [] }] };
    replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, { instanceId: `${ns}-${String(i)}`, config: { approvals } }),
      ),
    );
    await waitSteady(fleet, replicas, ns);
    const signer = ['--name', 'carol', '--key', key];
    const [first] = replicas;
    const last = replicas.at(-1);
    if (first === undefined || last === undefined) throw new Error('no replica');

    const halted = await cli(
      runHalts,
      'sign',
      ...signer,
      ...['--pipeline', `${ns}/${APP_NAME}`, '--env', 'prod', '--reason', 'incident 42'],
      ...['--send', first.url],
    );
    expect(halted.code).toBe(0);
    const { status, body } = answer(halted.out);
    expect(status).toBe(201);
    const id = body.halt?.id ?? '';
    const stored = pipelineOf(fleet, ns).status?.halts?.find((h) => h.id === id);
    expect(stored).toMatchObject({ environment: 'prod', reason: 'incident 42' });
    expect(stored?.statement).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);

    // The other replica lifts it once its watch holds the halt.
    const lifted = await eventually(async () => {
      const result = await cli(runHalts, 'lift', ...signer, '--halt-id', id, '--send', last.url);
      if (result.out.startsWith('404 ')) throw new Error('not seen yet');
      return result;
    });
    expect([lifted.code, answer(lifted.out).status]).toEqual([0, 200]);
    const after = pipelineOf(fleet, ns).status?.halts?.find((h) => h.id === id);
    expect(after === undefined || after.liftedAt !== undefined).toBe(true);
  });
});

describe('halts from the command line across shards', () => {
  const LABEL = 'promotion-gateway.io/shard';
  const shards = ['eu', 'us', 'ap'];
  let gateways: RunningGateway[] = [];
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
  });

  it('halts a selector in every shard with one statement, and lifts it with one', async () => {
    // eu and us each serve one payments Pipeline; ap serves one of another team.
    for (const shard of shards)
      createApp(fleet, `cli-shard-${shard}`, {
        labels: { [LABEL]: shard, team: shard === 'ap' ? 'search' : 'payments' },
      });
    const approvals = { approvers: [{ name: 'carol', publicKeys: [{ value: pub }], groups: [] }] };
    gateways = await Promise.all(
      shards.map((shard) =>
        launchGateway(fleet, {
          instanceId: `cli-${shard}`,
          config: {
            approvals,
            sharding: { name: shard, pipelineSelector: `${LABEL}=${shard}` },
          },
        }),
      ),
    );
    for (const [i, shard] of shards.entries())
      await waitSteady(fleet, gateways.slice(i, i + 1), `cli-shard-${shard}`);
    const signer = ['--name', 'carol', '--key', key];
    const sends = gateways.flatMap((g) => ['--send', g.url]);

    const halted = await cli(
      runHalts,
      'sign',
      ...signer,
      ...['--selector', 'team=payments', '--env', 'prod', '--reason', 'freeze'],
      ...sends,
    );
    expect(halted.code).toBe(0);
    const lines = halted.out.trim().split('\n');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['201', '201', '404']);
    const halts = (ns: string) => pipelineOf(fleet, ns).status?.halts ?? [];
    const [eu] = halts('cli-shard-eu');
    expect(halts('cli-shard-us').map((h) => h.id)).toEqual([eu?.id]);
    expect(halts('cli-shard-ap')).toEqual([]);

    const lifted = await cli(runHalts, 'lift', ...signer, '--halt-id', eu?.id ?? '', ...sends);
    expect(lifted.code).toBe(0);
    expect(
      lifted.out
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[1]),
    ).toEqual(['200', '200', '404']);
    for (const ns of ['cli-shard-eu', 'cli-shard-us'])
      expect(halts(ns).every((h) => h.liftedAt !== undefined)).toBe(true);
  });
});
