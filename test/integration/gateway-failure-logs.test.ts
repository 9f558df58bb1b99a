/**
 * A failing Kubernetes call is logged as one line a person reads (status, reason, what was
 * being done), never as the client's error object with its stack and the API server's
 * response headers; the detail goes to debug only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  eventually,
  launchGateway,
  postSigned,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

let fleet: TestFleet;
let gateway: RunningGateway;
const lines: string[] = [];

beforeAll(async () => {
  fleet = await startTestFleet();
  gateway = await launchGateway(fleet, { logLines: lines });
});
afterAll(async () => {
  await gateway.close();
  await fleet.close();
});

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
  status?: number;
  err?: unknown;
}

const WARN = 40;

describe('failure logs', () => {
  it('log a failed status write in one line with status and reason, without stack or headers', async () => {
    const ns = 'failure-logs';
    createApp(fleet, ns);
    await waitSteady(fleet, [gateway], ns);
    // Promotion records are written to the Pipeline status: make every such write fail.
    await fleet.management.faults.set({
      errors: [{ rate: 1, code: 500, verbs: ['patch', 'update'], resources: ['pipelines'] }],
    });
    const before = lines.length;
    try {
      const res = await postSigned(
        gateway.url,
        '/v1/events/dev',
        upgradeBody(rollOut(fleet.dev, ns, '6.6.0')),
        fleet.key('dev'),
      );
      expect(res.status).toBe(202);
      const failures = await eventually(() => {
        const found = lines
          .slice(before)
          .map((line) => JSON.parse(line) as LogLine)
          .filter((line) => line.level >= WARN);
        expect(found.length).toBeGreaterThan(0);
        return found;
      });
      for (const line of failures) {
        expect(line).not.toHaveProperty('err');
        expect(line.reason).toBe('ServerError');
        expect(line.status).toBe(500);
      }
      const text = lines.slice(before).join('');
      expect(text).not.toMatch(/"stack"|\bat .*\.js:\d+/);
      expect(text).not.toMatch(/audit-id|content-type|x-kubernetes/i);
      for (const line of lines.slice(before)) expect(line.trimEnd().split('\n')).toHaveLength(1);
      expect(recordOf(fleet, ns, 'staging')).toBeUndefined();
    } finally {
      await fleet.management.faults.clear('errors');
    }
    // Once writes succeed again the retried promotion lands: the failure was retried, not lost.
    await eventually(() => {
      expect(recordOf(fleet, ns, 'staging')).toMatchObject({ revision: '6.6.0' });
    });
  });
});
