/**
 * While a promotion's pull request is open, the environment waits for the merge and says so
 * (`Waiting`, `PullRequestOpen`, "prod waits for pull request #1 to merge (opened at ...)"),
 * never "succeeded", on one replica as on two: both replicas' views agree, the Pipeline's
 * `PromotionPending` condition names the request, and resync passes on both write nothing
 * more (the message counts no time). Once merged and rolled out, prod is `Deployed`.
 */
import { startForge, type ForgeHandle } from 'forge-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_NAME,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  recordOf,
  rollOut,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { fluxAppliesProd, prepareRepository, repoName } from '../support/pull-request.js';

const PROMOTION = {
  pullRequest: { allowPlainHttp: true, refreshIntervalMs: 0 },
  retry: { maxAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 1000 },
};

let fleet: TestFleet;
let forge: ForgeHandle;
let token: string;
const running: RunningGateway[] = [];

beforeAll(async () => {
  [fleet, forge] = await Promise.all([startTestFleet(), startForge({ kind: 'github' })]);
  token = forge.addToken('promoter');
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.close()));
  await forge.close();
  await fleet.close();
});

/** Status writes (PUT or PATCH of the status subresource) of the Pipelines in `ns`. */
function statusWrites(ns: string): number {
  const of = (verb: 'update' | 'patch') =>
    fleet.management.requests.count({
      verb,
      resource: 'pipelines.pipelines.weave.works',
      namespace: ns,
      subresource: 'status',
    });
  return of('update') + of('patch');
}

const OPEN_MESSAGE =
  /^prod waits for pull request #\d+ to merge \(opened at \d{4}-\d\d-\d\dT[\d:.]+Z\); it promotes 6\.6\.0$/;

describe.each([1, 2])('an open pull request, on %i replica(s)', (count) => {
  it('reads as a wait for its merge on every replica, steadily, then Deployed once merged', async () => {
    const ns = `pr-open-${String(count)}`;
    const repo = repoName('github', ns);
    const prodStrategy = await prepareRepository(fleet, forge, ns, {
      repo,
      token,
      version: '6.5.0',
    });
    createApp(fleet, ns, { prodStrategy });
    const replicas = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        launchGateway(fleet, {
          instanceId: `${ns}-${String(i)}`,
          config: { promotion: PROMOTION, leaderElection: { name: `${ns}-resync` } },
        }),
      ),
    );
    running.push(...replicas);
    await waitSteady(fleet, replicas, ns);
    rollOut(fleet.dev, ns, '6.6.0');
    rollOut(fleet.staging, ns, '6.6.0');
    for (const r of replicas) await r.gateway.resync();
    await eventually(() => {
      const record = recordOf(fleet, ns, 'prod');
      if (record?.pullRequest?.state !== 'open') throw new Error(JSON.stringify(record));
    });

    const prodOf = (r: RunningGateway) =>
      r.gateway
        .view({ namespace: ns, name: APP_NAME })
        ?.decisions.find((d) => d.environment === 'prod');
    for (const r of replicas) {
      await r.gateway.resync();
      await r.gateway.idle();
      await eventually(() => {
        expect(prodOf(r)).toMatchObject({
          outcome: 'Waiting',
          reason: 'PullRequestOpen',
          revision: '6.6.0',
        });
      });
      expect(prodOf(r)?.message).toMatch(OPEN_MESSAGE);
    }
    expect(new Set(replicas.map((r) => prodOf(r)?.message)).size).toBe(1);
    await eventually(() => {
      const pending = pipelineOf(fleet, ns).status?.conditions?.find(
        (c) => c.type === 'PromotionPending',
      );
      expect(pending).toMatchObject({ status: 'True', reason: 'PullRequestOpen' });
      expect(pending?.message).toMatch(/^prod: prod waits for pull request #\d+ to merge/);
    });

    // Nothing changes while it stays open: passes on every replica write no status.
    const before = statusWrites(ns);
    for (let pass = 0; pass < 2; pass++) for (const r of replicas) await r.gateway.resync();
    for (const r of replicas) await r.gateway.idle();
    expect(statusWrites(ns)).toBe(before);

    const [request] = forge.pullRequests(repo);
    await forge.merge(repo, request?.number ?? 0);
    expect(await fluxAppliesProd(fleet, forge, repo, ns)).toBe('6.6.0');
    for (const r of replicas) {
      await r.gateway.resync();
      await r.gateway.idle();
      await eventually(() => {
        expect(prodOf(r)).toMatchObject({ outcome: 'UpToDate', reason: 'Deployed' });
      });
    }
  });
});
