/**
 * Halts across Pipelines while the management API cannot take some writes: each Pipeline it
 * could not write is `unavailable` (the others are done, the call is partial and a retry
 * completes it); when it could take none, the call rejects with the API's failure (answered 503
 * Unavailable) and nothing is written; a bug in one write still fails the call as a bug.
 */
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HaltCaller } from '../../../src/halts/halt-access.js';
import { FleetHalter } from '../../../src/halts/fleet-halter.js';
import { isUnavailable } from '../../../src/kube/errors.js';
import type { KubeObject } from '../../../src/kube/ports.js';
import { createLogger } from '../../../src/log.js';
import { parseSelectorText } from '../../../src/labels/label-selector.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { T0, samplePipeline } from '../../support/pipeline-fixtures.js';

const NS = 'flux-system';
const NAMES = ['p1', 'p2', 'p3'];

/** A writer whose status writes of the Pipelines named in `failing` reject with `failure`. */
class FailingWriter extends FakePipelineWriter {
  readonly failing = new Set<string>();
  failure: Error = new ApiException(503, 'HTTP-Code: 503', '', {});

  override replaceStatus(object: KubeObject) {
    if (this.failing.has(object.metadata.name)) return Promise.reject(this.failure);
    return super.replaceStatus(object);
  }
}

function rig() {
  const port = new FailingWriter();
  for (const name of NAMES) {
    const p = samplePipeline();
    p.metadata = { ...p.metadata, name, namespace: NS, labels: { team: 'payments' } };
    port.put(p);
  }
  const all = () => NAMES.flatMap((n) => port.peek(NS, n) ?? []);
  const outcomes: string[] = [];
  const halter = new FleetHalter({
    catalog: { heads: all },
    status: statusWriterOver(port, [], { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 }),
    events: port,
    logger: createLogger('silent'),
    now: () => T0,
    approvers: ['alice'],
    floors: {},
    recheck: () => undefined,
    onOutcome: (_kind, outcome) => outcomes.push(outcome),
  });
  const held = () => NAMES.filter((n) => (port.peek(NS, n)?.status?.halts ?? []).length > 0);
  return { port, halter, outcomes, held };
}

const alice: HaltCaller = {
  principal: { name: 'alice', kind: 'human', groups: [], jti: 'j1', expiresAt: T0 + 600_000 },
  ciAllowed: () => Promise.resolve(false),
};

function payments() {
  const parsed = parseSelectorText('team=payments');
  if (!parsed.ok) throw new Error(parsed.problem);
  return { namespace: NS, selector: parsed.selector, environment: 'prod', reason: 'incident' };
}

describe('FleetHalter while the management API cannot take every write', () => {
  it('reports the Pipelines it could not write as unavailable; the same call again completes it', async () => {
    const r = rig();
    r.port.failing.add('p2');
    const partial = await r.halter.halt(alice, payments());
    expect(partial).toMatchObject({
      ok: true,
      complete: false,
      pipelines: [
        { pipeline: `${NS}/p1`, outcome: 'halted' },
        { pipeline: `${NS}/p2`, outcome: 'unavailable' },
        { pipeline: `${NS}/p3`, outcome: 'halted' },
      ],
    });
    expect(r.held()).toEqual(['p1', 'p3']);
    r.port.failing.clear();
    const again = await r.halter.halt(alice, payments());
    expect(again).toMatchObject({ ok: true, complete: true });
    expect(again.ok && again.pipelines.map((p) => p.outcome)).toEqual(['held', 'halted', 'held']);
    expect(r.held()).toEqual(NAMES);
    expect(r.outcomes).toEqual(['halt-Partial', 'halted']);
  });

  it('rejects with the API failure, writing nothing, when it could take no write at all', async () => {
    const r = rig();
    for (const name of NAMES) r.port.failing.add(name);
    const failure = await r.halter.halt(alice, payments()).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBe(r.port.failure);
    expect(isUnavailable(failure)).toBe(true);
    expect(r.held()).toEqual([]);
  });

  it('fails the call as a bug when a write fails otherwise', async () => {
    const r = rig();
    r.port.failing.add('p3');
    r.port.failure = new TypeError('status is not iterable');
    await expect(r.halter.halt(alice, payments())).rejects.toThrow(TypeError);
  });
});
