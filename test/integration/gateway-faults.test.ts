/**
 * A target cluster that cannot be read (refused connections, 500s, 403s) blocks promotion to
 * it: the target is Unknown with the reason in the Pipeline status, neither an event nor the
 * resync promotes, and once the fault clears the gateway recovers by itself (retry/backoff).
 */
import { describe, expect, it } from 'vitest';
import { TARGET_ACCESS } from '../../src/kube/access.js';
import {
  APP_NAME,
  GATEWAY_USER,
  createApp,
  eventually,
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

interface Fault {
  name: string;
  ns: string;
  apply: () => Promise<void> | void;
  clear: () => Promise<void> | void;
  /** What the staging target's `error` must say. */
  error: RegExp;
}

const faults: Fault[] = [
  {
    name: 'refuses connections',
    ns: 'down',
    apply: () => suite.fleet.staging.faults.set({ down: true }),
    clear: () => suite.fleet.staging.faults.clear('down'),
    error: /^Unavailable: the cluster is unreachable \(ECONNREFUSED\)/,
  },
  {
    name: 'answers 500 to every read',
    ns: 'error500',
    apply: () =>
      suite.fleet.staging.faults.set({
        errors: [{ rate: 1, code: 500, resources: ['helmreleases'] }],
      }),
    clear: () => suite.fleet.staging.faults.clear('errors'),
    error: /^ServerError: the cluster answered 500/,
  },
  {
    name: 'answers 403 (the gateway user lost its rights)',
    ns: 'forbidden',
    apply: () => {
      suite.fleet.staging.addUser(GATEWAY_USER, []);
    },
    clear: () => {
      suite.fleet.staging.addUser(GATEWAY_USER, TARGET_ACCESS);
    },
    error: /^Forbidden: .*forbidden/,
  },
];

describe('the real gateway on kube-sim: an unreadable target cluster', () => {
  it.each(faults)(
    'staging $name: Unknown with the reason, no promotion, then recovery',
    async (fault) => {
      const { ns } = fault;
      createApp(suite.fleet, ns);
      await waitSteady(suite.fleet, [suite.gw], ns);
      await fault.apply();
      try {
        // Everything the gateway read so far is now older than its freshness window.
        suite.gw.advanceClock(5_000);
        const res = await postSigned(
          suite.gw.url,
          '/v1/events/dev',
          upgradeBody(rollOut(suite.fleet.dev, ns, '6.6.0')),
          suite.fleet.key('dev'),
        );
        expect(res.status).toBe(202);

        const target = await eventually(() => {
          const t = pipelineOf(suite.fleet, ns).status?.environments?.staging?.targets?.[0];
          expect(t?.ready).toBe(false);
          expect(t?.error).toMatch(fault.error);
          return t;
        });
        expect(target).not.toHaveProperty('revision');
        const staging = suite.gw.gateway
          .view({ namespace: ns, name: APP_NAME })
          ?.decisions.find((d) => d.environment === 'staging');
        expect(staging).toMatchObject({ outcome: 'Unknown', reason: 'TargetUnknown' });
        expect(staging?.message).toContain('staging');

        // Neither the event nor a full resync promotes while the target cannot be read.
        const report = await suite.gw.gateway.resync();
        expect(report.unknown).toBeGreaterThanOrEqual(1);
        await suite.gw.gateway.idle();
        expect(recordOf(suite.fleet, ns, 'staging')).toBeUndefined();
        expect(promoteEvents(suite.fleet, ns)).toEqual([]);
      } finally {
        await fault.clear();
      }

      // No event and no resync from here on: the gateway's own retries must notice.
      await eventually(() => {
        expect(recordOf(suite.fleet, ns, 'staging')).toMatchObject({
          revision: '6.6.0',
          phase: 'Succeeded',
          succeeded: true,
          attempt: 1,
        });
        expect(
          pipelineOf(suite.fleet, ns).status?.environments?.staging?.targets?.[0],
        ).toMatchObject({
          ready: true,
          revision: '6.5.0',
        });
      });
      await suite.gw.gateway.idle();
      expect(promoteEvents(suite.fleet, ns).map((e) => e.metadata.annotations)).toEqual([
        { environment: 'staging', version: '6.6.0' },
      ]);
    },
  );
});
