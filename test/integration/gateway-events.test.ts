/**
 * Flux events through real sockets into the real gateway, against kube-sim: an event is only a
 * hint, the cluster's own state decides, unreferenced or misdirected events cost no reads,
 * bursts coalesce, and a lost event is made good by the resync.
 */
import { burstReadBound, timedBurst } from '../support/burst.js';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { packagePath } from '../../src/paths.js';
import {
  APP_NAME,
  HR_RESOURCE,
  createApp,
  metricSum,
  eventually,
  hintsDrained,
  pipelineOf,
  postSigned,
  promoteEvents,
  recordOf,
  rollOut,
  upgradeBody,
  waitSteady,
  useFleetAndGateway,
} from '../support/gateway-harness.js';

const suite = useFleetAndGateway();

/** Waits until staging's promotion record is the Succeeded first attempt at `revision`. */
async function promotedTo(ns: string, revision: string): Promise<void> {
  await eventually(() => {
    expect(recordOf(suite.fleet, ns, 'staging')).toMatchObject({
      revision,
      phase: 'Succeeded',
      succeeded: true,
      attempt: 1,
    });
  });
  await suite.gw.gateway.idle();
}

describe('the real gateway on kube-sim: Flux events', () => {
  it('turns a Flux event in the exact wire format into the next environment promotion', async () => {
    const ns = 'wire';
    createApp(suite.fleet, ns);
    await waitSteady(suite.fleet, [suite.gw], ns);

    const released = rollOut(suite.fleet.dev, ns, '6.6.0');
    const body = upgradeBody(released);
    // Go's compact encoding, field order as notification-controller sends it, no newline.
    expect(body.toString('utf8')).toMatch(/^\{"involvedObject":\{"kind":"HelmRelease",/);
    expect(body.at(-1)).toBe(0x7d);
    const res = await postSigned(suite.gw.url, '/v1/events/dev', body, suite.fleet.key('dev'));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true, hint: 'queued' });

    await promotedTo(ns, '6.6.0');
    const events = promoteEvents(suite.fleet, ns);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      reason: 'Promote',
      metadata: { annotations: { environment: 'staging', version: '6.6.0' } },
      involvedObject: { kind: 'Pipeline', name: APP_NAME, namespace: ns },
    });
    // Staging still runs 6.5.0 (no Flux here to roll it), so prod has nothing to take yet.
    expect(recordOf(suite.fleet, ns, 'prod')).toBeUndefined();
  });

  it('accepts the upstream byte-exact generic-hmac vector only with its own key', async () => {
    const dir = packagePath('test', 'fixtures', 'flux', 'events');
    const body = readFileSync(`${dir}/01-generic-hmac-test-vector.body.json`);
    const meta = JSON.parse(readFileSync(`${dir}/01-generic-hmac-test-vector.meta.json`, 'utf8'))
      .expectedHeaders as Record<string, string>;
    // The vector was signed with another key than dev's: the exact headers are refused...
    const refused = await postSigned(suite.gw.url, '/v1/events/dev', body, undefined, meta);
    expect(refused.status).toBe(401);
    // ...and the same bytes signed with dev's key pass; a GitRepository is not an app kind.
    const accepted = await postSigned(
      suite.gw.url,
      '/v1/events/dev',
      body,
      suite.fleet.key('dev'),
      {
        'Gotk-Component': 'source-controller',
      },
    );
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ accepted: true, hint: 'ignored' });
  });

  it('promotes what the cluster runs, never the revision an event claims', async () => {
    const ns = 'forged';
    createApp(suite.fleet, ns);
    await waitSteady(suite.fleet, [suite.gw], ns);

    const released = rollOut(suite.fleet.dev, ns, '6.7.1');
    const forged = upgradeBody(released, '9.9.9');
    expect(JSON.parse(forged.toString('utf8'))).toMatchObject({
      message: expect.stringContaining('podinfo@9.9.9') as unknown,
      metadata: { revision: '9.9.9', 'app-version': '9.9.9' },
    });
    const res = await postSigned(suite.gw.url, '/v1/events/dev', forged, suite.fleet.key('dev'));
    expect(res.status).toBe(202);

    await promotedTo(ns, '6.7.1');
    const events = promoteEvents(suite.fleet, ns);
    expect(events.map((e) => e.metadata.annotations?.version)).toEqual(['6.7.1']);
    expect(JSON.stringify(pipelineOf(suite.fleet, ns).status)).not.toContain('9.9.9');
    expect(JSON.stringify(suite.gw.gateway.view({ namespace: ns, name: APP_NAME }))).not.toContain(
      '9.9.9',
    );
  });

  it("refuses dev's credential on /v1/events/prod without reading prod", async () => {
    const ns = 'crossed';
    createApp(suite.fleet, ns);
    await waitSteady(suite.fleet, [suite.gw], ns);
    const prodObject = suite.fleet.prod.get(
      'helm.toolkit.fluxcd.io/v2',
      'HelmRelease',
      ns,
      APP_NAME,
    );
    const before = suite.fleet.prod.requests.snapshot();

    // A real event about prod's referenced HelmRelease, signed with dev's Provider key.
    const body = upgradeBody(prodObject as never);
    const res = await postSigned(suite.gw.url, '/v1/events/prod', body, suite.fleet.key('dev'));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      code: 'Unauthenticated',
      message: 'Authentication failed.',
    });
    await suite.gw.gateway.idle();
    const after = suite.fleet.prod.requests.snapshot();
    expect(after.total).toBe(before.total);
    expect(after.nonResource).toBe(before.nonResource);
  });

  it('reads nothing for an event about an object no pipeline references', async () => {
    const ns = 'unlisted';
    createApp(suite.fleet, ns);
    await waitSteady(suite.fleet, [suite.gw], ns);
    const other = suite.fleet.dev.apply({
      ...(suite.fleet.dev.get('helm.toolkit.fluxcd.io/v2', 'HelmRelease', ns, APP_NAME) ?? {}),
      metadata: { name: 'not-in-any-pipeline', namespace: ns },
    });
    const before = suite.fleet.dev.requests.snapshot();
    const dropped = () => hintCount('flux-event', 'dropped-unreferenced');
    const droppedBefore = await dropped();

    const res = await postSigned(
      suite.gw.url,
      '/v1/events/dev',
      upgradeBody(other as never),
      suite.fleet.key('dev'),
    );
    // Indistinguishable from a queued hint: which objects are referenced is not revealed.
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true, hint: 'queued' });
    await suite.gw.gateway.idle();
    expect(await dropped()).toBe(droppedBefore + 1);
    expect(suite.fleet.dev.requests.snapshot().total).toBe(before.total);
  });

  it('reads the object at most twice for a burst of 100 identical events (once more per second it spans)', async () => {
    const ns = 'burst';
    createApp(suite.fleet, ns);
    await waitSteady(suite.fleet, [suite.gw], ns);
    const gets = () =>
      suite.fleet.dev.requests.count({ verb: 'get', resource: HR_RESOURCE, namespace: ns });
    const before = gets();

    const body = upgradeBody(rollOut(suite.fleet.dev, ns, '6.8.0'));
    const { result: answers, spanMs } = await timedBurst(async () => {
      const sent = await Promise.all(
        Array.from({ length: 100 }, () =>
          postSigned(suite.gw.url, '/v1/events/dev', body, suite.fleet.key('dev')),
        ),
      );
      await Promise.all(sent.map((r) => r.text()));
      return sent;
    });
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 100 }, () => 202));

    await promotedTo(ns, '6.8.0');
    // The events that arrived after the first read started are covered by one spaced re-read.
    await hintsDrained(suite.gw);
    const reads = gets() - before;
    expect(reads).toBeGreaterThanOrEqual(1);
    // Two when the burst arrives within one spacing interval, as it does on an idle machine.
    expect(reads).toBeLessThanOrEqual(burstReadBound(spanMs));
    expect(promoteEvents(suite.fleet, ns)).toHaveLength(1);
  });

  it('still promotes when every event was lost: the resync finds the release', async () => {
    const ns = 'dropped';
    createApp(suite.fleet, ns);
    await waitSteady(suite.fleet, [suite.gw], ns);

    rollOut(suite.fleet.dev, ns, '6.9.0');
    await suite.gw.gateway.idle();
    // Nothing told the gateway: nothing can have happened yet.
    expect(recordOf(suite.fleet, ns, 'staging')).toBeUndefined();

    const report = await suite.gw.gateway.resync();
    expect(report.unknown).toBe(0);
    await promotedTo(ns, '6.9.0');
    expect(promoteEvents(suite.fleet, ns).map((e) => e.metadata.annotations)).toEqual([
      { environment: 'staging', version: '6.9.0' },
    ]);
  });
});

function hintCount(source: string, result: string): Promise<number> {
  return metricSum(suite.gw.url, 'promotion_gateway_hints_total', { source, result });
}
