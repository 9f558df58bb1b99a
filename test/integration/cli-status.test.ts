/**
 * `promotion-gateway status` against kube-sim, through the real client library with an
 * operator's kubeconfig: the table, one Pipeline in detail, JSON, --watch printing a change,
 * and the mistakes an operator makes (no such file, no such context, a cluster that refuses).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatus } from '../../src/cli/status.js';
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
import { FakeScheduler } from '../support/fake-scheduler.js';
import { tempDir } from '../support/temp-dirs.js';
import { applyTrain, createTrainApps } from '../support/train-rig.js';

const NS = 'cli-status';
let fleet: TestFleet;
let gw: RunningGateway;
let kubeconfig: string;

beforeAll(async () => {
  fleet = await startTestFleet();
  gw = await launchGateway(fleet);
  createApp(fleet, NS, { prodPromotion: { approval: { minApprovals: 1 } } });
  await waitSteady(fleet, [gw], NS);
  rollOut(fleet.dev, NS, '6.6.0');
  rollOut(fleet.staging, NS, '6.6.0');
  await gw.gateway.resync();
  await gw.gateway.idle();
  kubeconfig = join(tempDir('cli-status'), 'kubeconfig');
  writeFileSync(kubeconfig, fleet.management.kubeconfig());
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

/** Runs `status args...` with the operator's kubeconfig; resolves to [exit code, output]. */
async function status(args: string[], stop?: AbortSignal): Promise<[number, string]> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await runStatus(args, { env: { KUBECONFIG: kubeconfig }, out }, stop);
  return [code, text];
}

describe('promotion-gateway status', () => {
  it('prints one row per environment saying what runs and what waits', async () => {
    await eventually(async () => {
      const [code, text] = await status(['-n', NS]);
      expect(code).toBe(0);
      const rows = text.split('\n').filter((l) => l.startsWith(NS));
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatch(/podinfo +dev +6\.6\.0 +1\/1 +up to date/);
      expect(rows[2]).toMatch(/podinfo +prod +6\.5\.0 +1\/1 +waiting for approval of 6\.6\.0/);
    });
  });

  it('prints each release train with its combination per environment', async () => {
    const ns = 'cli-status-train';
    createTrainApps(fleet, ns, ['api', 'web']);
    applyTrain(fleet, ns, 'shop', {
      members: [{ name: 'api' }, { name: 'web', dependsOn: ['api'] }],
    });
    await gw.gateway.resync();
    await eventually(
      async () => {
        const [code, text] = await status(['-n', ns]);
        expect(code).toBe(0);
        expect(text).toMatch(/\nTRAIN +ENVIRONMENT +STATE +COMBINATION +WAITING\n/);
        expect(text).toMatch(
          new RegExp(
            `${ns}/shop +staging +Succeeded +api=6\\.5\\.0 web=6\\.5\\.0 \\(sha256:[0-9a-f]{12}…\\)`,
          ),
        );
        expect(text).toMatch(
          new RegExp(`${ns}/shop +prod +Succeeded +api=6\\.5\\.0 web=6\\.5\\.0`),
        );
      },
      { timeoutMs: 20_000 },
    );
  });

  it('prints a train the gateway does not use as one row saying why', async () => {
    const ns = 'cli-status-refused';
    createTrainApps(fleet, ns, ['api', 'web']);
    applyTrain(fleet, ns, 'loop', {
      members: [
        { name: 'api', dependsOn: ['web'] },
        { name: 'web', dependsOn: ['api'] },
      ],
    });
    await eventually(
      async () => {
        const [code, text] = await status(['-n', ns]);
        expect(code).toBe(0);
        expect(text).toMatch(
          new RegExp(
            `${ns}/loop +- +NotReady +DependsOnCycle: spec\\.members: dependsOn has a cycle`,
          ),
        );
      },
      { timeoutMs: 20_000 },
    );
  });

  it('prints one Pipeline in detail, and JSON that a script can read', async () => {
    // Without -n or -A, the context's namespace (here none: `default`), as kubectl does.
    const [defaultCode, none] = await status([]);
    expect([defaultCode, none]).toEqual([0, 'No Pipelines found.\n']);
    const [code, detail] = await status([`${NS}/podinfo`]);
    expect(code).toBe(0);
    expect(detail).toContain(`Pipeline ${NS}/podinfo (HelmRelease podinfo)`);
    expect(detail).toMatch(/prod: waiting for approval of 6\.6\.0/);
    const [jsonCode, json] = await status(['-A', '--json']);
    expect(jsonCode).toBe(0);
    const parsed = JSON.parse(json) as {
      pipelines: { namespace: string; environments: unknown[] }[];
    };
    const ours = parsed.pipelines.find((p) => p.namespace === NS);
    expect(ours?.environments).toHaveLength(3);
  });

  it('shows each environment’s policy gates: a POLICY column, a policy line, JSON', async () => {
    const ns = 'cli-status-soak';
    createApp(fleet, ns, { prodPromotion: { soak: { duration: '1h' } } });
    await waitSteady(fleet, [gw], ns);
    const since = await eventually(() => {
      const stored = pipelineOf(fleet, ns).status?.environments?.staging?.healthySince;
      if (stored === undefined) throw new Error('no healthySince for staging yet');
      return stored.time;
    });
    const [code, text] = await status(['-n', ns]);
    expect(code).toBe(0);
    const [header, ...rows] = text.split('\n');
    expect(header).toMatch(/ +STATE +POLICY +PULL REQUEST$/);
    expect(rows[2]).toMatch(/podinfo +prod +6\.5\.0 +1\/1 +up to date +soak (1h|59m) left$/);
    expect(rows[1]).toMatch(/podinfo +staging +6\.5\.0 +1\/1 +up to date$/);
    const [, detail] = await status([`${ns}/podinfo`]);
    expect(detail).toMatch(/\n {4}policy: soak (1h|59m) left\n/);
    const [, json] = await status(['-n', ns, '--json']);
    const parsed = JSON.parse(json) as {
      pipelines: { policy?: Record<string, { soak?: { healthySince?: string } }> }[];
    };
    expect(parsed.pipelines[0]?.policy?.prod?.soak?.healthySince).toBe(since);
    expect(Object.keys(parsed.pipelines[0]?.policy ?? {})).toEqual(['prod']);
  });

  it('prints again when something changes under --watch, and only then', async () => {
    const scheduler = new FakeScheduler(Date.now());
    const stop = new AbortController();
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const args = [`${NS}/podinfo`, '--watch', '--interval', '0.2'];
    const watching = runStatus(
      args,
      { env: { KUBECONFIG: kubeconfig }, out },
      stop.signal,
      scheduler,
    );
    const prints = () => text.split(`Pipeline ${NS}/podinfo`).length - 1;
    /** One interval on the watch's clock, then until it has read and waits again. */
    const nextRead = async () => {
      scheduler.advance(200);
      await eventually(() => scheduler.pending() === 1);
    };
    // The first read printed, and the watch waits for its interval.
    await eventually(() => prints() === 1 && scheduler.pending() === 1);
    await nextRead();
    expect(prints()).toBe(1);
    rollOut(fleet.prod, NS, '6.4.0');
    await gw.gateway.resync();
    await eventually(
      () => pipelineOf(fleet, NS).status?.environments?.prod?.targets?.[0]?.revision === '6.4.0',
    );
    await nextRead();
    expect(prints()).toBe(2);
    expect(text).toContain('6.4.0');
    // Nothing changed since: a read an interval later prints nothing.
    await nextRead();
    stop.abort();
    expect(await watching).toBe(0);
    expect(prints()).toBe(2);
  });

  it('names the file or the context an operator got wrong (exit 2), and a refusing cluster (exit 1)', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const missing = await runStatus(['--kubeconfig', '/nonexistent/kc'], { env: {}, out });
    expect(missing).toBe(2);
    expect(text).toContain('no kubeconfig at /nonexistent/kc');
    const [badContext, contextText] = await status(['--context', 'nope']);
    expect(badContext).toBe(2);
    expect(contextText).toContain(`context "nope" is not in the kubeconfig ${kubeconfig}`);
    // A user the cluster knows but whose rules grant nothing on Pipelines: a 403.
    fleet.management.addUser('nobody', []);
    const nobody = join(tempDir('cli-status'), 'nobody');
    writeFileSync(nobody, fleet.management.kubeconfig('nobody'));
    const refused = new PassThrough();
    let refusedText = '';
    refused.on('data', (c: Buffer) => (refusedText += c.toString('utf8')));
    expect(await runStatus(['--kubeconfig', nobody], { env: {}, out: refused })).toBe(1);
    expect(refusedText).toMatch(/^error: cannot read Pipelines: /);
    expect(refusedText).not.toContain('    at ');
  });

  it('gives kubectl get pipelines columns that say what waits', async () => {
    const got = await new Promise<string>((resolve, reject) => {
      execFile(
        'kubectl',
        ['--kubeconfig', kubeconfig, 'get', 'pipelines', '-n', NS, '-o', 'wide'],
        { encoding: 'utf8' },
        (err, stdout) => {
          if (err === null) resolve(stdout);
          else reject(new Error(`kubectl get failed: ${err.message}`));
        },
      );
    });
    const [header, row] = got.trimEnd().split('\n');
    expect(header).toMatch(/NAME +APP KIND +APP NAME +AGE +READY +STATUS +PENDING +MESSAGE/);
    expect(row).toMatch(
      /podinfo +HelmRelease +podinfo .* +True +All 3 targets are ready +ApprovalRequired +prod: .*needs approval of 6\.6\.0/,
    );
  });
});
