/**
 * The README's story, through the demo's own commands over real sockets: dev rolls out, staging
 * waits for dev's 5 s soak, then is promoted and rolled out by the Flux stand-in, prod waits for
 * an approval; the approval opens
 * a pull request in the fleet repository, merging it has the Git-reading Flux stand-in roll prod
 * out and the gateway report it Deployed; a failed rollout moves nothing; a CI trigger promotes
 * the next revision the same way; a version whose tests fail once promoted to staging is rolled
 * back there by the gateway and held from staging and prod, and the next good one flows on; and
 * stopping the demo removes its state.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, stateDir } from '../src/state.js';
import { prodVersions, pullRequestTitles } from './fleet-reads.js';
import { demoBuilt, readmeCommand, sh } from './readme-commands.js';
import { eventually, startStoryDemo, type StoryDemo } from './story-demo.js';

let story: StoryDemo | undefined;
let port: number;
let log: StoryDemo['log'];

function demo(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  if (story === undefined) throw new Error('the demo did not start');
  return story.command(...argv);
}

/** The status line about `env`'s promotion pull request, if any. */
async function pullRequestLine(env: string): Promise<string | undefined> {
  const { out } = await demo('status');
  return out.split('\n').find((l) => l.startsWith(`pull request for ${env} `));
}

/** The status table's row for `env`, split on runs of spaces. */
async function row(env: string): Promise<string> {
  const { out, err } = await demo('status');
  const line = out.split('\n').find((l) => l.startsWith(env));
  if (line === undefined) throw new Error(`no row for ${env} in\n${out}${err}`);
  return line.replace(/\s{2,}/g, ' | ');
}

let stopped: Promise<number> | undefined;
const stop = (): Promise<number> => (stopped ??= story?.stop() ?? Promise.resolve(0));

beforeAll(async () => {
  story = await startStoryDemo();
  ({ port, log } = story);
  // Starting the simulated fleet and the gateway takes seconds on a busy machine (startStoryDemo
  // waits up to a minute, as a hang detector would, not as a speed bar).
}, 90_000);
afterAll(async () => {
  await stop();
});

describe('the demo story', () => {
  it('soaks 6.6.0 in dev, then promotes staging by itself and holds prod for an approval', async () => {
    const deployed = await demo('deploy', '--env', 'dev', '--version', '6.6.0');
    const deployedAt = Date.now();
    expect(deployed).toMatchObject({ code: 0, err: '' });
    expect(deployed.out).toContain(
      'dev: HelmRelease podinfo/podinfo now runs 6.6.0; event sent, gateway answered 202',
    );
    // staging waits for dev's 5 s soak, and its policy says how long is left.
    await eventually(async () => {
      expect(await row('staging')).toMatch(
        /^staging \| 6\.5\.0 \(Healthy\) \| Waiting 6\.6\.0 \| Soaking \| soak [1-5]s left$/,
      );
    });
    await eventually(async () => {
      expect(await row('prod')).toBe(
        'prod | 6.5.0 (Healthy) | WaitingApproval 6.6.0 | ApprovalRequired, 0 of 1 approval',
      );
    }, 20_000);
    expect(Date.now() - deployedAt).toBeGreaterThanOrEqual(5_000);
    expect(await row('staging')).toBe(
      'staging | 6.6.0 (Healthy) | UpToDate 6.6.0 | Deployed | soak 5s done',
    );
    // While prod waits, status shows what the approval would let through: the pull request's
    // change and the digest an approval signs.
    const { out } = await demo('status');
    expect(out).toMatch(/^prod waits on this change: prod: .*6\.5\.0 -> 6\.6\.0.*$/m);
    expect(out).toMatch(/^ {2}digest sha256:[0-9a-f]{64} \(what a bound approval signs\)$/m);
    expect(out).toMatch(/^ {4}-.*6\.5\.0.*$/m);
    expect(out).toMatch(/^ {4}\+.*6\.6\.0.*$/m);
  });

  it.each(['6.9.0; rm -rf /', 'banana', 'v6.9.0'])(
    'refuses deploy --version %j before touching the fleet, exit 2',
    async (version) => {
      const before = await row('dev');
      const refused = await demo('deploy', '--env', 'dev', '--version', version);
      expect(refused.code).toBe(2);
      expect(refused.out).toBe('');
      expect(refused.err).toContain(
        `--version must be a SemVer 2 chart version such as 6.6.0 or 6.7.0-rc.1 (no leading v), not "${version}"`,
      );
      expect(await row('dev')).toBe(before);
      expect(before).toContain('6.6.0 (Healthy)');
    },
  );

  it('tells that story in its log at the default level, as the README says', () => {
    const lines = log
      .text()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    const info = new Set(lines.filter((l) => l.level === 30).map((l) => l.msg));
    for (const msg of [
      'hinted object verified',
      'pipeline evaluated',
      'promotion succeeded',
      'demo flux: rolled out the promoted version',
    ])
      expect(info).toContain(msg);
  });

  it('opens a pull request for prod once the demo approver approves', async () => {
    const approved = await demo('approve', '--env', 'prod', '--revision', '6.6.0');
    expect(approved.code).toBe(0);
    expect(approved.out).toContain('demo-approver approved 6.6.0 for prod: 202');
    await eventually(async () => {
      expect(await pullRequestLine('prod')).toMatch(
        /^pull request for prod \(6\.6\.0\): http:\/\/127\.0\.0\.1:\d+\/acme\/fleet\/pull\/1 \(open\)$/,
      );
    });
    // Proposed, not applied: prod runs what Git's main branch says, and says it waits for the
    // merge (not "succeeded"), until the request is merged.
    expect(await row('prod')).toBe('prod | 6.5.0 (Healthy) | Waiting 6.6.0 | PullRequestOpen');
    const json = JSON.parse((await demo('status', '--json')).out) as {
      decisions: { environment: string; message: string }[];
    };
    expect(json.decisions.find((d) => d.environment === 'prod')?.message).toMatch(
      /^prod waits for pull request #1 to merge \(opened at \d{4}-\d\d-\d\dT[\d:.]+Z\); it promotes 6\.6\.0$/,
    );
    expect(log.text()).toContain('"msg":"authorization recorded"');
  });

  it("opens the request's page on the forge from the link status prints", async () => {
    const line = (await pullRequestLine('prod')) ?? '';
    const url = /(http:\S+\/pull\/1)/.exec(line)?.[1] ?? '';
    const page = await fetch(url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain(
      '<span data-testid="pr-title">Promote podinfo/podinfo in prod to 6.6.0</span>',
    );
    expect(html).toContain('class="state open">Open</strong>');
    expect(html).toContain('<code data-testid="pr-head">promotion-podinfo-podinfo-prod</code>');
    expect(html).toMatch(/\+\s+version: 6\.6\.0/);
  });

  it('answers a promote of a revision prod does not wait for with what to do next', async () => {
    const early = await demo('promote', '--env', 'prod', '--revision', '6.9.0');
    expect(early.code).toBe(1);
    expect(early.out).toContain(
      'CI (example/podinfo-deploy) asked to promote 6.9.0 to prod: 409 NotWaiting prod is not waiting for an approval (PullRequestOpen: ',
    );
    expect(early.out).toContain('roll 6.9.0 out there first, then ask again\n');
    expect(early.out).toContain(
      'next: deploy it to dev (npm run demo -- deploy --env dev --version 6.9.0), wait until `npm run demo -- status` shows prod WaitingApproval 6.9.0, then ask again\n',
    );
  });

  it('rolls prod out once the request is merged, and reports it Deployed', async () => {
    const merged = await demo('merge', '--env', 'prod');
    expect(merged).toMatchObject({
      code: 0,
      err: '',
      out: 'merged pull request #1 (Promote podinfo/podinfo in prod to 6.6.0): Flux applies it next\n',
    });
    await eventually(async () => {
      expect(await row('prod')).toBe('prod | 6.6.0 (Healthy) | UpToDate 6.6.0 | Deployed');
      expect(await pullRequestLine('prod')).toMatch(/\/pull\/1 \(merged\)$/);
    });
    expect(log.text()).toContain('"msg":"demo flux: applied the merged version from Git"');
    // The demo's PromotionAlert told its receiver, which verified the signature.
    await eventually(async () => {
      await Promise.resolve();
      const received = log
        .text()
        .split('\n')
        .filter((l) => l.includes('"msg":"notification received (signature verified)"'));
      expect(
        received.some(
          (l) => l.includes('"type":"promotion.succeeded"') && l.includes('"environment":"prod"'),
        ),
      ).toBe(true);
    });
  });

  it('says so when there is no open request to merge, exit 1', async () => {
    const again = await demo('merge');
    expect(again).toMatchObject({ code: 1, out: '' });
    expect(again.err).toBe(
      'demo: no open pull request promotes podinfo/podinfo in prod (the gateway opens one once a revision is approved for prod)\n',
    );
    const staging = await demo('merge', '--env', 'staging');
    expect(staging).toMatchObject({ code: 1, out: '' });
    expect(staging.err).toBe(
      'demo: staging is not promoted through a pull request in the demo: only prod is, so there is nothing to merge for staging\n',
    );
  });

  it('moves nothing after a failed rollout, whatever the event says', async () => {
    const failed = await demo('deploy', '--env', 'dev', '--version', '6.7.0', '--fail');
    expect(failed.out).toContain('failed to upgrade to 6.7.0 (Ready=False)');
    await eventually(async () => {
      expect(await row('dev')).toMatch(/^dev \| 6\.6\.0 \(Unhealthy\) \| Source \| /);
    });
    expect(await row('staging')).toMatch(
      /^staging \| 6\.6\.0 \(Healthy\) \| Waiting \| UpstreamNotReady \| soak 5s$/,
    );
    expect(log.text()).not.toContain('"revision":"6.7.0","attempt"');
  });

  it('promotes prod on a CI trigger from the demo issuer, through a second request', async () => {
    await demo('deploy', '--env', 'dev', '--version', '6.8.0');
    await eventually(async () => {
      expect(await row('prod')).toContain('WaitingApproval 6.8.0');
    }, 20_000);
    const ci = await demo('promote', '--env', 'prod', '--revision', '6.8.0');
    expect(ci.out).toContain('CI (example/podinfo-deploy) asked to promote 6.8.0 to prod: 202');
    await eventually(async () => {
      expect(await pullRequestLine('prod')).toMatch(
        /^pull request for prod \(6\.8\.0\): .*\/pull\/2 \(open\)$/,
      );
    });
    const merged = await demo('merge', '--env', 'prod');
    expect(merged.out).toContain(
      'merged pull request #2 (Promote podinfo/podinfo in prod to 6.8.0)',
    );
    await eventually(async () => {
      expect(await row('prod')).toBe('prod | 6.8.0 (Healthy) | UpToDate 6.8.0 | Deployed');
    });
    const json = await demo('status', '--json');
    expect(JSON.parse(json.out)).toMatchObject({ namespace: 'podinfo', name: 'podinfo' });
  });

  it('rolls staging back by itself when a promoted version breaks it, and holds it from prod', async () => {
    const deployed = await demo(
      'deploy',
      '--env',
      'dev',
      '--version',
      '6.9.0',
      '--break-after-promotion',
    );
    expect(deployed).toMatchObject({ code: 0, err: '' });
    expect(deployed.out).toBe(
      'dev: HelmRelease podinfo/podinfo now runs 6.9.0 (its Helm tests will fail once it is promoted to staging); event sent, gateway answered 202\n',
    );
    const lines = await eventually(async () => {
      const { out } = await demo('status');
      expect(out).toContain(
        'rollback of staging from 6.9.0 to 6.8.0 (automatic, by promotion-gateway): Succeeded; 6.9.0 failed verification within 5m of its promotion (TestFailed: ',
      );
      return out.split('\n');
    }, 40_000);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^held: 6\.9\.0 for staging and prod \(FailedVerification in staging at \d{4}-\d\d-\d\dT[\d:.]+Z, by promotion-gateway\): not taken there until a newer version arrives or the hold is lifted$/,
      ),
    );
    // Staging ran 6.9.0 before its tests failed, and runs 6.8.0 again; prod stays at 6.8.0.
    await eventually(async () => {
      expect(await row('staging')).toBe(
        'staging | 6.8.0 (Healthy) | Waiting 6.9.0 | FailedVerification | soak 5s done',
      );
    });
    expect(await row('prod')).toBe('prod | 6.8.0 (Healthy) | UpToDate 6.8.0 | Deployed');
    const story = log.text();
    expect(story).toMatch(
      /"environment":"staging","version":"6\.9\.0","msg":"demo flux: rolled out/,
    );
    expect(story).toContain('"msg":"demo flux: the Helm tests of the promoted version failed');
    expect(story).toMatch(
      /"environment":"staging","version":"6\.8\.0","msg":"demo flux: rolled out/,
    );
    // prod never ran 6.9.0: not in its HelmRelease, and no pull request ever proposed it.
    const state = await readState(stateDir(port), port);
    const prod = await prodVersions(state);
    expect(prod).toContain('6.8.0');
    expect(prod).not.toContain('6.9.0');
    expect((await pullRequestTitles(state)).sort()).toEqual([
      'Promote podinfo/podinfo in prod to 6.6.0',
      'Promote podinfo/podinfo in prod to 6.8.0',
    ]);
  }, 60_000);

  it('lets the next good version flow: staging takes it, prod waits for its approval', async () => {
    await demo('deploy', '--env', 'dev', '--version', '6.10.0');
    await eventually(async () => {
      expect(await row('prod')).toBe(
        'prod | 6.8.0 (Healthy) | WaitingApproval 6.10.0 | ApprovalRequired, 0 of 1 approval',
      );
    }, 20_000);
    expect(await row('staging')).toBe(
      'staging | 6.10.0 (Healthy) | UpToDate 6.10.0 | Deployed | soak 5s done',
    );
    const { out } = await demo('status');
    expect(out).not.toContain('rollback of staging');
    expect(await prodVersions(await readState(stateDir(port), port))).not.toContain('6.10.0');
  }, 60_000);

  // The bin runs only what `npm run build:all` made; tests run the sources, so this one needs a
  // build (.ci/run builds before the tests).
  it.runIf(demoBuilt())(
    "prints JSON that parses with the README's own `status --json` command",
    async () => {
      const command = readmeCommand(/^npm run .*status --json/);
      const { stdout, stderr } = await sh(`${command} --port ${String(port)}`);
      expect(stderr).toBe('');
      expect(JSON.parse(stdout)).toMatchObject({ namespace: 'podinfo', name: 'podinfo' });
    },
  );

  it('stops cleanly and removes its state', async () => {
    expect(await stop()).toBe(0);
    expect(existsSync(stateDir(port))).toBe(false);
    const after = await demo('status');
    expect(after.code).toBe(1);
    expect(after.err).toContain('no demo is running');
  });
});
