/**
 * kubectl against the shipped Pipeline CRD on kube-sim (its validation and kube-sim's): it takes
 * the promotion windows docs/policy.md shows and refuses malformed ones, naming the window.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestFleet, type TestFleet } from '../support/gateway-harness.js';

let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet();
});
afterAll(async () => {
  await fleet.close();
});

describe('kubectl and the Pipeline CRD', () => {
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'windows-kubectl-'));
    kubeconfig = join(dir, 'management.kubeconfig');
    await writeFile(kubeconfig, fleet.management.kubeconfig());
    fleet.management.ensureNamespace('kubectl-windows');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function apply(windows: unknown[]): Promise<{ code: number; stderr: string }> {
    const pipeline = {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { name: 'podinfo', namespace: 'kubectl-windows' },
      spec: {
        appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
        environments: [
          { name: 'dev', targets: [{ namespace: 'podinfo' }] },
          {
            name: 'prod',
            targets: [{ namespace: 'podinfo' }],
            promotion: { strategy: { notification: {} }, windows },
          },
        ],
      },
    };
    return new Promise((resolve) => {
      const child = execFile(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'apply', '-f', '-'],
        { encoding: 'utf8' },
        (err, _stdout, stderr) => {
          resolve({ code: err === null ? 0 : 1, stderr });
        },
      );
      child.stdin?.end(stringify(pipeline));
    });
  }

  it("takes policy.md's weekend freeze and business hours", async () => {
    const result = await apply([
      {
        name: 'weekend',
        type: 'Deny',
        cron: '0 18 * * FRI',
        timeZone: 'Europe/Berlin',
        duration: 'P2DT14H',
      },
      {
        name: 'business-hours',
        type: 'Allow',
        rrule: 'DTSTART;TZID=Europe/Berlin:20250106T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH\n',
        timeZone: 'Europe/Berlin',
        duration: '8h',
      },
    ]);
    expect(result).toEqual({ code: 0, stderr: '' });
  });

  it.each([
    ['both rrule and cron', { cron: '0 9 * * *', rrule: 'DTSTART:20250101T090000' }],
    ['a lower-case type', { cron: '0 9 * * *', type: 'deny' }],
    ['a duration in days, Go style', { cron: '0 9 * * *', duration: '2d' }],
  ])('refuses %s, naming the window', async (_name, fields) => {
    const window = { name: 'w', type: 'Deny', timeZone: 'UTC', duration: '1h', ...fields };
    const result = await apply([window]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('spec.environments[1].promotion.windows[0]');
  });
});
