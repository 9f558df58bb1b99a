/**
 * What stands behind the authorization doors in process: an authorizer and two halters that
 * record one line per state change they would make, answering as the real ones do when they
 * record. Like the real halters they ask a CI job's policies before halting or lifting, so a
 * job reaches them only where a policy covers it.
 */
import type { AuthorizationClaim, Principal } from '../../../src/auth/identity.js';
import type { AuthorizationResult, Authorizer } from '../../../src/approvals/authorizer.js';
import type { FleetHalter, FleetResult } from '../../../src/halts/fleet-halter.js';
import type { HaltCaller, Halter, HaltRequest, HaltResult } from '../../../src/halts/halter.js';
import { pipelineId, type PipelineRef } from '../../../src/pipeline/id.js';
import type { HaltRecord } from '../../../src/pipeline/pipeline-resource.js';

/** Where the fakes write what they would have changed. */
export type RecordLine = (line: string) => void;

/** The halt every fake answers with (of prod, so a CI job's lift is judged for prod). */
const HALT: HaltRecord = {
  id: 'h-1',
  environment: 'prod',
  principal: 'alice',
  kind: 'human',
  reason: 'fuzz',
  time: '2026-01-01T00:00:00Z',
};

/** People always reach the halters; a CI job only where its policies cover the environment. */
async function allowed(caller: HaltCaller, ref: PipelineRef, environment: string | undefined) {
  return caller.principal.kind !== 'ci' || (await caller.ciAllowed(ref, environment));
}

/** An authorizer that records every authorization it is given, as `waiting`. */
export function fakeAuthorizer(record: RecordLine): Pick<Authorizer, 'submit'> {
  return {
    submit: (
      pipeline: PipelineRef,
      environment: string,
      principal: Principal,
      claim: AuthorizationClaim,
    ): Promise<AuthorizationResult> => {
      const id = pipelineId(pipeline);
      record(`authorization ${id} ${environment} ${principal.name} ${claim.decision}`);
      const { revision, decision } = claim;
      const answer = {
        recorded: true,
        pipeline: id,
        environment,
        revision,
        decision,
        principal: principal.name,
      };
      return Promise.resolve({ ok: true, answer: { ...answer, state: 'waiting' } });
    },
  };
}

/** A halter of one Pipeline that records each halt and lift it allows. */
export function fakeHalter(record: RecordLine): Pick<Halter, 'halt' | 'lift'> {
  return {
    halt: async (
      ref: PipelineRef,
      caller: HaltCaller,
      request: HaltRequest,
    ): Promise<HaltResult> => {
      if (!(await allowed(caller, ref, request.environment)))
        return { ok: false, refusal: 'Forbidden' };
      record(`halt ${pipelineId(ref)} ${caller.principal.name}`);
      return { ok: true, halt: HALT };
    },
    lift: async (ref: PipelineRef, caller: HaltCaller, id: string): Promise<HaltResult> => {
      if (!(await allowed(caller, ref, HALT.environment)))
        return { ok: false, refusal: 'Forbidden' };
      record(`lift ${pipelineId(ref)} ${id} ${caller.principal.name}`);
      return { ok: true, halt: HALT };
    },
  };
}

/** A halter across Pipelines whose every selector matches `pipeline` alone. */
export function fakeFleetHalter(
  record: RecordLine,
  pipeline: PipelineRef,
): Pick<FleetHalter, 'halt' | 'lift'> {
  const done = (outcome: 'halted' | 'lifted'): FleetResult => ({
    ok: true,
    halt: HALT,
    pipelines: [{ pipeline: pipelineId(pipeline), outcome }],
    skipped: 0,
    complete: true,
  });
  return {
    halt: async (caller, request) => {
      if (!(await allowed(caller, pipeline, request.environment)))
        return { ok: false, refusal: 'Forbidden' };
      record(`fleet-halt ${caller.principal.name}`);
      return done('halted');
    },
    lift: async (caller, id) => {
      if (!(await allowed(caller, pipeline, HALT.environment)))
        return { ok: false, refusal: 'Forbidden' };
      record(`fleet-lift ${id} ${caller.principal.name}`);
      return done('lifted');
    },
  };
}
