/**
 * The end of a chaos run: what every environment runs and what its record says (read from the
 * simulated clusters directly), and the bounded wait until every environment has converged on
 * the final revision and both replicas are ready again.
 */
import type { TestFleet } from '../fleet.js';
import { INITIAL, runningRevision, statusOf, type App } from './apps.js';
import { sleep } from './gateway-client.js';
import type { Replicas } from './replicas.js';

/** A promotion record as far as the checks read it. */
export interface RecordView {
  revision: string;
  phase?: string;
  claimedBy?: string;
  lastAttemptedTime?: string;
  attempt?: number;
}

/** One application at one moment: dev's final revision, what runs and what is recorded. */
export interface AppState {
  app: App;
  devFinal: string;
  running: Record<string, string | undefined>;
  records: Record<string, RecordView | undefined>;
  waitingApproval: string | undefined;
}

/** Environments the gateway promotes to. */
export const DOWNSTREAM = ['staging', 'prod'] as const;

/** Reads `app`'s state now. */
export function stateOf(fleet: TestFleet, app: App): AppState {
  const envs = statusOf(fleet, app)?.environments ?? {};
  const running: Record<string, string | undefined> = {};
  const records: Record<string, RecordView | undefined> = {};
  for (const env of ['dev', ...DOWNSTREAM]) {
    running[env] = runningRevision(fleet, env, app);
    records[env] = envs[env]?.promotion;
  }
  return {
    app,
    devFinal: app.devVersions.at(-1) ?? INITIAL,
    running,
    records,
    waitingApproval: envs.prod?.waitingApproval?.revision,
  };
}

/** Whether `env` runs dev's final revision and its record says that revision Succeeded. */
export function envConverged(state: AppState, env: string): boolean {
  const record = state.records[env];
  if (state.running[env] !== state.devFinal) return false;
  if (record === undefined) return state.devFinal === INITIAL;
  return record.revision === state.devFinal && record.phase === 'Succeeded';
}

/** Whether every downstream environment has converged. */
export function converged(state: AppState): boolean {
  return DOWNSTREAM.every((env) => envConverged(state, env));
}

/** One line naming what an unconverged application shows. */
export function describeState(state: AppState): string {
  const env = (name: string) => {
    const r = state.records[name];
    const record = r === undefined ? 'no record' : `record ${r.revision} ${String(r.phase)}`;
    return `${name} runs ${String(state.running[name])} (${record})`;
  };
  const waiting =
    state.waitingApproval === undefined
      ? ''
      : `, prod waits for approval of ${state.waitingApproval}`;
  return `${state.app.id}${state.app.gated ? ' (gated)' : ''}: dev final ${state.devFinal}; ${env('staging')}; ${env('prod')}${waiting}`;
}

/** Whether `url`'s /readyz answers 200 (a probe: not counted among the test's requests). */
async function ready(url: string | undefined): Promise<boolean> {
  if (url === undefined) return false;
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** How the wait ended: when everything converged (ms after the load stopped), or what did not. */
export interface Settled {
  convergedAfterMs: number | undefined;
  states: AppState[];
  replicasReady: boolean;
}

/** When the wait starts, how long it may take, and what else must hold before it ends. */
export interface SettleOptions {
  from: number;
  boundMs: number;
  /** Waited for too (within the bound) once converged, e.g. the notifications' backlog. */
  also: () => boolean;
}

/**
 * Polls until every application converged and the newest replica of each slot is live and ready
 * (the convergence time is taken then), and `also` holds, or `boundMs` after `from` passes.
 */
export async function settle(
  fleet: TestFleet,
  apps: readonly App[],
  replicas: Replicas,
  { from, boundMs, also }: SettleOptions,
): Promise<Settled> {
  let convergedAfterMs: number | undefined;
  for (;;) {
    const states = apps.map((app) => stateOf(fleet, app));
    const newest = replicas.newest();
    const alive = newest.length === 2 && newest.every((r) => r.inPool && !r.killed && !r.exited);
    const replicasReady =
      alive && (await Promise.all(newest.map((r) => ready(r.url)))).every(Boolean);
    if (replicasReady && states.every(converged)) convergedAfterMs ??= Date.now() - from;
    else convergedAfterMs = undefined;
    const over = Date.now() - from > boundMs;
    if ((convergedAfterMs !== undefined && also()) || over)
      return { convergedAfterMs, states, replicasReady };
    await sleep(500);
  }
}
