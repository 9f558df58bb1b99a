/**
 * The demo's release train: api and web (web after api) in namespace shop, each at its first
 * version in dev, staging and prod. `promotion-gateway status -n shop`, run with the demo's
 * kubeconfig as its banner says, shows the apps and, per gated environment, the combination the
 * train's release takes: both versions and the combination's digest, Succeeded (every member
 * already runs it). New versions of both deployed to dev go to staging and then prod as one
 * combination, api before web in each. The web view shows the train as one row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatus } from '../../../src/cli/status.js';
import { combinationDigest } from '../../../src/trains/combination-digest.js';
import { TRAIN_APPS, TRAIN_NAME, TRAIN_NAMESPACE } from '../src/objects.js';
import { readState, stateDir } from '../src/state.js';
import { io } from './io.js';
import { eventually, startStoryDemo, type StoryDemo } from './story-demo.js';

let story: StoryDemo | undefined;

beforeAll(async () => {
  story = await startStoryDemo();
}, 90_000);
afterAll(async () => {
  await story?.stop();
});

/** The running demo's state file. */
function demoState() {
  if (story === undefined) throw new Error('the demo did not start');
  return readState(stateDir(story.port), story.port);
}

/** `promotion-gateway status -n shop` with the demo's kubeconfig: its exit code and output. */
async function operatorStatus(): Promise<{ code: number; out: string }> {
  const state = await demoState();
  const t = io();
  const args = ['-n', TRAIN_NAMESPACE, '--kubeconfig', state.kubeconfig, '--context', 'management'];
  const code = await runStatus(args, { ...t.io, env: {} });
  return { code, out: t.out() };
}

describe("the demo's release train", () => {
  it("shows in promotion-gateway status the combination of the train's release per environment", async () => {
    const members = Object.fromEntries(TRAIN_APPS.map((a) => [a.name, a.version]));
    const digest = combinationDigest(members);
    const words = `api=1.4.0 web=2.3.0 (${digest.slice(0, 19)}…)`;
    const out = await eventually(async () => {
      const { code, out } = await operatorStatus();
      expect(code).toBe(0);
      for (const env of ['staging', 'prod'])
        expect(out.replace(/ {2,}/g, ' | ')).toContain(
          `${TRAIN_NAMESPACE}/${TRAIN_NAME} | ${env} | Succeeded | ${words}`,
        );
      return out;
    }, 20_000);
    expect(out).toMatch(/^TRAIN +ENVIRONMENT +STATE +COMBINATION +WAITING$/m);
    // Each app's own rows: both Pipelines of the namespace, every environment at its version.
    for (const app of TRAIN_APPS)
      for (const env of ['dev', 'staging', 'prod'])
        expect(out).toMatch(
          new RegExp(`^${TRAIN_NAMESPACE} +${app.name} +${env} +${app.version} `, 'm'),
        );
  });

  it('takes a new combination from dev through staging to prod, web after api', async () => {
    if (story === undefined) throw new Error('the demo did not start');
    for (const [app, version] of [
      ['api', '1.5.0'],
      ['web', '2.4.0'],
    ] as const) {
      const deployed = await story.command(
        'deploy',
        '--app',
        app,
        '--env',
        'dev',
        '--version',
        version,
      );
      expect(deployed).toMatchObject({ code: 0, err: '' });
      expect(deployed.out).toBe(
        `dev: HelmRelease ${TRAIN_NAMESPACE}/${app} now runs ${version}; event sent, gateway answered 202\n`,
      );
    }
    const digest = combinationDigest({ api: '1.5.0', web: '2.4.0' });
    const words = `api=1.5.0 web=2.4.0 (${digest.slice(0, 19)}…)`;
    await eventually(async () => {
      const { out } = await operatorStatus();
      for (const env of ['staging', 'prod'])
        expect(out.replace(/ {2,}/g, ' | ')).toContain(
          `${TRAIN_NAMESPACE}/${TRAIN_NAME} | ${env} | Succeeded | ${words}`,
        );
    }, 60_000);
    // In each environment the Flux stand-in rolled api out before web (web dependsOn api).
    const rolled = story.log
      .text()
      .split('\n')
      .filter((l) => l.includes('"msg":"demo flux: rolled out the promoted version"'))
      .map((l) => JSON.parse(l) as { environment: string; app?: string; version: string });
    for (const env of ['staging', 'prod'])
      expect(rolled.filter((r) => r.environment === env).map((r) => [r.app, r.version])).toEqual([
        ['api', '1.5.0'],
        ['web', '2.4.0'],
      ]);
  });

  it('shows the train as one row on the fleet page of the web view', async () => {
    const state = await demoState();
    await eventually(async () => {
      const page = await (await fetch(`${state.viewUrl}/`)).text();
      expect(page.match(/data-testid="train-row"/g)).toHaveLength(1);
      expect(page).toContain(`data-train="${TRAIN_NAMESPACE}/${TRAIN_NAME}"`);
    }, 20_000);
  });
});
