/**
 * A Kubernetes API that cannot serve never makes a door answer 500. Through real sockets, with
 * kube-sim's management cluster down, answering 503, 500 or 429, or too slow to answer: every
 * door that reads or writes it (approvals by statement and SSO, CI promotions, the legacy
 * approval, halts and lifts of one Pipeline and across Pipelines) answers 503 Unavailable with
 * Retry-After and the registry's fixed text, records nothing, and works again once the API
 * answers; the doors that answer from memory (Flux events, the legacy webhook, the read API,
 * the web view) answer as usual. With a target cluster down the approvals answer 503 as well.
 */
import type { SimCluster } from 'kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/ingress/http-errors.js';
import type { PipelineStatus } from '../../src/pipeline/pipeline-resource.js';
import { eventually, pipelineOf, type TestFleet } from '../support/gateway-harness.js';
import {
  approvalDoors,
  halt,
  haltDoors,
  memoryDoors,
  prodWaitsWithHalt,
  startOutageRig,
  type DoorCall,
  type OutageRig,
} from '../support/outage-rig.js';

let rig: OutageRig;

beforeAll(async () => {
  rig = await startOutageRig();
});
afterAll(async () => {
  await rig.close();
});

/** Calls every door at once; resolves with each door's name and answer. */
function callAll(doors: Record<string, DoorCall>): Promise<[string, Response][]> {
  return Promise.all(
    Object.entries(doors).map(async ([name, call]): Promise<[string, Response]> => [
      name,
      await call(),
    ]),
  );
}

/** Each answer is 503 Unavailable with Retry-After and only the registry's fixed text. */
async function expectUnavailable(answers: [string, Response][]): Promise<void> {
  for (const [door, res] of answers) {
    const text = await res.text();
    expect([door, res.status, res.headers.get('retry-after')]).toEqual([door, 503, '5']);
    expect([door, JSON.parse(text)]).toEqual([
      door,
      { code: 'Unavailable', message: ErrorCodes.Unavailable.message },
    ]);
  }
}

/** What the doors could change: prod's approvals, the halts, and the Events saying so. */
function recorded(fleet: TestFleet, ns: string) {
  const status: PipelineStatus | undefined = pipelineOf(fleet, ns).status;
  const events = fleet.management.list('v1', 'Event', ns) as { reason?: string }[];
  const reasons = ['ApprovalRecorded', 'PromotionAuthorized', 'PromotionsHalted', 'HaltLifted'];
  return {
    approvals: status?.environments?.prod?.approvals,
    halts: status?.halts,
    events: events.filter((e) => reasons.includes(e.reason ?? '')).length,
  };
}

/** Once the API answers again, an approval is recorded as if nothing had happened. */
async function approvalRecordedAgain(ns: string): Promise<void> {
  const approve = approvalDoors(rig, ns)['approval by statement'];
  await eventually(async () => {
    const res = await approve?.();
    expect(res?.status).toBe(202);
    expect(await res?.json()).toMatchObject({ recorded: true, principal: 'alice' });
  });
}

interface Outage {
  name: string;
  ns: string;
  set: (management: SimCluster) => Promise<void>;
}

const outages: Outage[] = [
  { name: 'refuses connections', ns: 'out-down', set: (m) => m.faults.set({ down: true }) },
  ...[503, 500, 429].map((code) => ({
    name: `answers ${String(code)} to every call`,
    ns: `out-${String(code)}`,
    set: (m: SimCluster) => m.faults.set({ errors: [{ rate: 1, code }] }),
  })),
];

describe('the management cluster cannot serve', () => {
  it.each(outages)(
    '$name: its doors answer 503 Unavailable and record nothing, the others answer as usual',
    async ({ ns, set }) => {
      const { fleet } = rig;
      const haltId = await prodWaitsWithHalt(rig, ns);
      const before = recorded(fleet, ns);
      const memory = memoryDoors(rig, ns);
      await set(fleet.management);
      try {
        await expectUnavailable(
          await callAll({ ...approvalDoors(rig, ns), ...haltDoors(rig, ns, haltId) }),
        );
        for (const [door, [call, status]] of Object.entries(memory))
          expect([door, (await call()).status]).toEqual([door, status]);
      } finally {
        await fleet.management.faults.clear();
      }
      expect(recorded(fleet, ns)).toEqual(before);
      expect(before.approvals).toBeUndefined();
      expect(before.halts?.map((h) => h.id)).toEqual([haltId]);
      await approvalRecordedAgain(ns);
    },
  );

  it('is too slow to answer: the doors that read first answer 503 once their call times out', async () => {
    const { fleet } = rig;
    const ns = 'out-slow';
    const haltId = await prodWaitsWithHalt(rig, ns);
    const before = recorded(fleet, ns);
    // Reads of Pipelines are held unanswered; the gateway gives up after its call timeout.
    await fleet.management.faults.set({
      hang: { verbs: ['get'], resources: ['pipelines.pipelines.weave.works'] },
    });
    try {
      const { lift } = haltDoors(rig, ns, haltId);
      if (lift === undefined) throw new Error('no lift door');
      await expectUnavailable(await callAll({ ...approvalDoors(rig, ns), lift }));
    } finally {
      await fleet.management.faults.clear();
    }
    expect(recorded(fleet, ns)).toEqual(before);
    await approvalRecordedAgain(ns);
  });
});

describe('a target cluster cannot serve', () => {
  const targets: { name: string; ns: string; set: (f: TestFleet) => Promise<void> }[] = [
    { name: 'staging is down', ns: 'tgt-down', set: (f) => f.staging.faults.set({ down: true }) },
    {
      name: 'prod answers 500 to reads of HelmReleases',
      ns: 'tgt-500',
      set: (f) =>
        f.prod.faults.set({ errors: [{ rate: 1, code: 500, resources: ['helmreleases'] }] }),
    },
  ];

  it.each(targets)(
    '$name: the approvals, which re-read it, answer 503 Unavailable; a halt, which does not, is recorded',
    async ({ ns, set }) => {
      const { fleet } = rig;
      await prodWaitsWithHalt(rig, ns);
      await set(fleet);
      try {
        await expectUnavailable(await callAll(approvalDoors(rig, ns)));
        const res = await halt(rig, ns, { environment: 'staging', reason: 'hold staging' });
        expect(res.status).toBe(201);
      } finally {
        await Promise.all([fleet.staging.faults.clear(), fleet.prod.faults.clear()]);
      }
      const after = recorded(fleet, ns);
      expect(after.approvals).toBeUndefined();
      expect(after.halts?.map((h) => h.environment)).toEqual(['dev', 'staging']);
      await approvalRecordedAgain(ns);
    },
  );
});
