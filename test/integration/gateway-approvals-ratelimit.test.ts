/**
 * The approval door is rate limited per principal: one approver who keeps sending spends only
 * their own budget (429 RateLimited with Retry-After), another approver is not held back, and
 * nothing a throttled request carried is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approver,
  approverConfig,
  postStatement,
  statement,
  type TestApprover,
} from '../support/authorizations.js';
import {
  APP_NAME,
  createApp,
  launchGateway,
  pipelineOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';

const BUDGET = 3;
let fleet: TestFleet;
let gw: RunningGateway;
let alice: TestApprover;
let bob: TestApprover;

beforeAll(async () => {
  [alice, bob] = await Promise.all([approver('alice'), approver('bob')]);
  fleet = await startTestFleet();
  gw = await launchGateway(fleet, {
    config: {
      rateLimit: { max: BUDGET, timeWindowMs: 60_000 },
      approvals: { approvers: approverConfig([alice, bob]) },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await fleet.close();
});

describe('approvals rate limit', () => {
  it('throttles one approver without holding back another', async () => {
    const ns = 'ratelimit';
    createApp(fleet, ns, { prodPromotion: { manual: true } });
    await waitSteady(fleet, [gw], ns);
    const sign = (who: TestApprover) =>
      statement(who, { pipeline: `${ns}/${APP_NAME}`, environment: 'prod', revision: '9.9.9' });

    const answers: number[] = [];
    for (let i = 0; i < BUDGET + 2; i++)
      answers.push((await postStatement(gw.url, ns, 'prod', await sign(alice))).status);
    // Within the budget each is answered on its merits (nothing waits for 9.9.9), then 429.
    expect(answers.slice(0, BUDGET)).toEqual(Array.from({ length: BUDGET }, () => 409));
    expect(answers.slice(BUDGET)).toEqual([429, 429]);

    const throttled = await postStatement(gw.url, ns, 'prod', await sign(alice));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await throttled.json()).toMatchObject({ code: 'RateLimited' });

    const other = await postStatement(gw.url, ns, 'prod', await sign(bob));
    expect(other.status).toBe(409);
    expect(pipelineOf(fleet, ns).status?.environments?.prod?.approvals ?? []).toEqual([]);
  });
});
