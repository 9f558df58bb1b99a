/**
 * What the rollback integration tests share: the rollback and hold-lift doors as a caller uses
 * them, an environment's record awaited at a revision and phase, its stored holds, and the Promote
 * Events of one environment by revision (what Flux's notification-controller would act on).
 */
import { expect } from 'vitest';
import type { PromotionRecord, RevisionHold } from '../../src/pipeline/pipeline-resource.js';
import {
  APP_NAME,
  eventually,
  pipelineOf,
  promoteEvents,
  recordOf,
  type RunningGateway,
  type TestFleet,
} from './gateway-harness.js';

/** POST .../environments/{env}/rollbacks with a bearer token and a JSON body (or raw text). */
export function requestRollback(
  g: RunningGateway,
  ns: string,
  env: string,
  token: string | undefined,
  body: unknown,
): Promise<Response> {
  return fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}/environments/${env}/rollbacks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** DELETE .../environments/{env}/holds/{revision}. */
export function liftHold(
  g: RunningGateway,
  ns: string,
  env: string,
  token: string,
  revision: string,
): Promise<Response> {
  return fetch(`${g.url}/v1/pipelines/${ns}/${APP_NAME}/environments/${env}/holds/${revision}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
}

/** Waits until `env`'s record is `revision` in `phase` (Succeeded by default). */
export function recordAt(
  fleet: TestFleet,
  ns: string,
  env: string,
  revision: string,
  phase: PromotionRecord['phase'] = 'Succeeded',
  timeoutMs = 20_000,
): Promise<PromotionRecord> {
  return eventually(
    () => {
      const r = recordOf(fleet, ns, env);
      if (r?.revision !== revision || r.phase !== phase)
        throw new Error(`${env}'s record is ${JSON.stringify(r)}`);
      return r;
    },
    { timeoutMs },
  );
}

/** `env`'s stored holds. */
export function holdsOf(fleet: TestFleet, ns: string, env: string): RevisionHold[] {
  return pipelineOf(fleet, ns).status?.environments?.[env]?.holds ?? [];
}

/** The revisions of the Promote Events for `env`, in the order the management API lists them. */
export function promotedRevisions(fleet: TestFleet, ns: string, env: string): string[] {
  return promoteEvents(fleet, ns)
    .filter((e) => e.metadata.annotations?.environment === env)
    .map((e) => e.metadata.annotations?.version ?? '');
}

/** Waits until `env` has run `revision` healthy by the stored `verified` list. */
export async function verifiedAt(
  fleet: TestFleet,
  ns: string,
  env: string,
  revision: string,
): Promise<void> {
  await eventually(
    () => {
      const verified = pipelineOf(fleet, ns).status?.environments?.[env]?.verified ?? [];
      if (!verified.some((v) => v.revision === revision))
        throw new Error(`${env} verified ${JSON.stringify(verified)}`);
    },
    { timeoutMs: 20_000 },
  );
  expect(true).toBe(true);
}
