/**
 * A platform team's busy day against two real gateway processes (`serve` with a config file)
 * sharing a kube-sim fleet: tens of events a second (new dev revisions, duplicates, replays),
 * half the prods behind approvals, a webhook receiver that also plays Flux and fails now and
 * then, the Lease holder SIGKILLed and restarted, the management API down for 10 s. Then the
 * core promise, checked from what the test saw: every environment ends on its record's
 * revision, each revision arrives once and in order, gated ones only after their approval,
 * never before upstream ran them, no 5xx, no claim left behind, convergence within a bound.
 *
 * Alone: `npx vitest run --project integration test/integration/chaos-promotions.test.ts`.
 * Longer and bigger: CHAOS_SECONDS=150 CHAOS_PIPELINES=200 (more knobs in
 * test/support/chaos/knobs.ts; CHAOS_SEED repeats a run's choices, CHAOS_KEEP=1 keeps the logs).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  badSignatures,
  beforeApproval,
  concurrentAttempts,
  excerpt,
  leftClaimed,
  notConverged,
  notFound,
  offRecord,
  olderAfterNewer,
  promotedTwice,
  serverErrors,
  upstreamNotRun,
} from '../support/chaos/checks.js';
import { ChaosScenario, type RunResult } from '../support/chaos/scenario.js';
import { summary } from '../support/chaos/summary.js';

const scenario = new ChaosScenario();
const { knobs } = scenario;
let run: RunResult;
let failed = false;

// Set-up (build, fleet, two processes) and teardown take well under a minute on a busy machine.
const RUN_BUDGET_MS = 60_000 + (knobs.seconds + knobs.convergeSeconds + 15) * 1000;

beforeAll(async () => {
  console.log(
    `chaos: seed ${String(knobs.seed)}, ${String(knobs.pipelines)} Pipelines, ${String(knobs.seconds)} s; work dir ${scenario.dir}`,
  );
  try {
    run = await scenario.run();
  } catch (err) {
    failed = true;
    throw err;
  }
  console.log(summary(run));
}, RUN_BUDGET_MS);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  if (failed && scenario.replicas !== undefined) {
    const kept = knobs.keep ? `kept in ${scenario.dir}` : 'CHAOS_KEEP=1 keeps them';
    console.log(`replica logs (${kept}), last lines:\n${scenario.replicas.tails(25)}`);
  }
  await scenario.cleanup();
}, 60_000);

/** Fails with `what` and up to a dozen examples when `violations` is not empty. */
function none(violations: string[], what: string): void {
  expect(violations.length, `${what}:\n${excerpt(violations)}`).toBe(0);
}

describe('promotions through a busy day with replicas killed and outages', () => {
  it('never delivers an older revision to an environment after a newer one', () => {
    none(olderAfterNewer(run.journal), 'environments given an older revision after a newer one');
  });

  it('runs one attempt at a time per environment', () => {
    none(concurrentAttempts(run.journal), 'environments with two deliveries in flight at once');
  });

  it('leaves every environment on the revision its Succeeded record names', () => {
    none(offRecord(run.final), 'environments running another revision than their record');
  });

  it('promotes each (environment, revision) once', () => {
    none(promotedTwice(run.journal), '(environment, revision) pairs accepted more than once');
  });

  it('leaves no record Claimed once settled', () => {
    none(leftClaimed(run.final), 'records still Claimed after settling');
  });

  it('answers no request of the test with a 5xx', () => {
    none(serverErrors(run.journal), '5xx answers to events, approvals and API reads');
  });

  it(`converges within the bound after the load stops (${String(knobs.convergeSeconds)} s)`, () => {
    none(notConverged(run.settled, run.boundMs), 'environments not converged');
  });

  it('delivers a gated prod revision only after its approval was recorded', () => {
    none(beforeApproval(run.journal, run.apps), 'gated promotions delivered before an approval');
  });

  it('delivers a revision only after the upstream environment ran it', () => {
    none(upstreamNotRun(run.journal), 'promotions of a revision upstream had not run');
  });

  it('signs every delivery (Standard Webhooks)', () => {
    none(badSignatures(run.journal), 'deliveries whose signature the receiver refused');
  });

  it('notifies every recorded success, or counts it superseded (PromotionAlert)', () => {
    none(run.alerts, 'successes not notified');
  });

  it('never denies that an existing Pipeline exists (404) on a ready replica', () => {
    none(notFound(run.journal), '404 answers about Pipelines that exist');
  });
});
