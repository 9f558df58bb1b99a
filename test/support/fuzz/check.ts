/**
 * One fuzzed request against a door, judged: every answer passes the oracle; a request whose
 * credential is invalid changes nothing and reads nothing (no hint, authorization, halt, status
 * write or read reached what is behind the door) and gets no answer only a known caller may
 * get; a clean request gets exactly what its credential earns (401 when invalid, the door's
 * own answer when valid).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { runFuzz, type FuzzReport } from './budget.js';
import type { FuzzCase } from './noise.js';
import {
  checkApiAnswer,
  checkViewAnswer,
  expectApiError,
  expectUnauthenticatedAnswer,
} from './oracle.js';
import { send, type Answer, type Exchange, type WireRequest } from './wire.js';

/**
 * What is behind a door, seen from outside: its state changes (one entry per change, or one
 * entry per piece of state that must not move) and the reads it served.
 */
export interface Observation {
  effects: readonly string[];
  reads: number;
}

/** What a fuzzed door exposes to the checks. */
export interface FuzzTarget {
  port: number;
  /** `api`: JSON errors from the registry; `view`: HTML pages and SSE streams. */
  kind: 'api' | 'view';
  secrets: readonly string[];
  observe(): Observation;
}

/** A target over an in-process recorder (doors-app.ts, view-app.ts). */
export function recorderTarget(
  app: { port: number; secrets: readonly string[]; recorder: { effects: string[]; reads: number } },
  kind: FuzzTarget['kind'],
): FuzzTarget {
  const { recorder } = app;
  return {
    port: app.port,
    kind,
    secrets: app.secrets,
    observe: () => ({ effects: [...recorder.effects], reads: recorder.reads }),
  };
}

/** The effects that differ between two observations (new entries, or entries that moved). */
function changes(before: Observation, after: Observation): string[] {
  return after.effects.filter((effect, i) => effect !== before.effects[i]);
}

function describeCase(c: FuzzCase): string {
  const { method, path } = c.request;
  return `${JSON.stringify(method)} ${JSON.stringify(path.slice(0, 100))} [${c.label}]`;
}

/** How the cases of this run went, by kind and first status (printed with FUZZ_REPORT). */
const tally = new Map<string, number>();

function count(c: FuzzCase, exchange: Exchange): void {
  const status =
    exchange.unsent === undefined ? String(exchange.answers[0]?.status ?? 'none') : 'unsent';
  const key = `${c.clean ? 'clean' : 'noisy'} ${c.validity} ${status}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
}

/** Checks every answer of `exchange`. */
function checkAnswers(
  target: FuzzTarget,
  c: FuzzCase,
  answers: readonly Answer[],
  what: string,
): void {
  const head = c.request.method === 'HEAD';
  for (const answer of answers) {
    let code: string | undefined;
    if (target.kind === 'api') code = checkApiAnswer(answer, target.secrets, what, head);
    else checkViewAnswer(answer, target.secrets, what);
    if (c.validity === 'invalid') expectUnauthenticatedAnswer(answer, code, what);
  }
}

/**
 * Framings after which the server may still be handling a request when the client sees the
 * connection close: the bytes past a short or absent Content-Length are a second, garbled
 * message, and a GET is handled before its (broken) body ends; the 400 for the garbled part
 * closes the connection while the request's handler runs on.
 */
const LEAVES_STRAGGLERS: ReadonlySet<string> = new Set([
  'short-length',
  'no-length',
  'long-length',
  'bad-chunks',
]);
const QUIET_MS = 30;

/** How long what a target observes must hold still before a door's first case. */
const SETTLED_MS = 500;

/**
 * Resolves once what the target observes has not changed for `quietMs` (at most `maxMs`): work
 * left running by a case, or by the setup (a status write's watch event re-checking its
 * Pipeline), must not count against the next case.
 */
async function quiet(target: FuzzTarget, quietMs = QUIET_MS, maxMs = 1_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = JSON.stringify(target.observe());
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = JSON.stringify(target.observe());
    if (now !== last) [last, since] = [now, Date.now()];
  }
}

/** What a clean request must get: 401 for a bad credential, the door's answer for a good one. */
function checkClean(
  target: FuzzTarget,
  c: FuzzCase,
  answer: Answer,
  changed: readonly string[],
  what: string,
): void {
  if (c.validity === 'invalid') {
    expect(answer.status, `${what}: a clean request with a bad credential`).toBe(401);
    if (target.kind === 'api') expect(expectApiError(answer, what)).toBe('Unauthenticated');
  }
  if (c.validity === 'valid' && c.expected !== undefined) {
    const body = answer.body.toString('utf8').slice(0, 200);
    expect(answer.status, `${what}: a clean valid request (${body})`).toBe(c.expected.status);
    expect(changed.length, `${what}: state changes`).toBe(c.expected.effect ? 1 : 0);
  }
}

/** Sends `c` and checks it; see the module comment. */
export async function checkCase(target: FuzzTarget, c: FuzzCase): Promise<void> {
  const before = target.observe();
  const exchange = await send(target.port, c.request);
  count(c, exchange);
  if (exchange.unsent !== undefined) return;
  const what = describeCase(c);
  const timedOut = exchange.timedOut === true ? ' in time' : '';
  expect(exchange.answers.length, `${what}: no answer${timedOut}`).toBeGreaterThan(0);
  checkAnswers(target, c, exchange.answers, what);
  const after = target.observe();
  const changed = changes(before, after);
  // A valid request's handler left running must not count against the next case.
  const { wire } = c.request;
  if (c.validity !== 'invalid' && wire.kind === 'raw' && LEAVES_STRAGGLERS.has(wire.framing))
    await quiet(target);
  if (c.validity === 'invalid') {
    expect(changed, `${what}: state changed without a valid credential`).toEqual([]);
    expect(after.reads - before.reads, `${what}: read before authentication`).toBe(0);
  }
  const [first] = exchange.answers;
  if (c.clean && first !== undefined) checkClean(target, c, first, changed, what);
}

/**
 * Runs `cases` against `target` for the door's budget (budget.ts); with FUZZ_REPORT set, prints
 * how the cases went (clean or noisy, the credential's validity, the first status).
 */
export async function fuzzDoor(
  name: string,
  target: FuzzTarget,
  cases: fc.Arbitrary<FuzzCase>,
  runs: number,
): Promise<FuzzReport> {
  tally.clear();
  await quiet(target, SETTLED_MS, 5_000);
  const report = await runFuzz(
    name,
    fc.asyncProperty(cases, (c) => checkCase(target, c)),
    runs,
  );
  if (process.env.FUZZ_REPORT !== undefined) {
    const lines = [...tally].sort().map(([key, n]) => `  ${key}: ${String(n)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return report;
}

/** Fails when any log line holds one of `secrets` (the log redacts credentials). */
export function expectLogsFree(logs: readonly string[], secrets: readonly string[]): void {
  const text = logs.join('');
  for (const secret of secrets) expect(text.includes(secret), 'a secret in the log').toBe(false);
}

/**
 * After the fuzzing: a valid request still gets its door's answer and still reaches what is
 * behind it (the door is not wedged), through fetch and through a raw socket.
 */
export async function expectStillWorks(
  target: FuzzTarget,
  request: Omit<WireRequest, 'wire'>,
  expected: { status: number; effect: boolean },
): Promise<void> {
  for (const wire of [{ kind: 'fetch' }, { kind: 'raw', framing: 'exact' }] as const) {
    const c = {
      request: { ...request, wire },
      validity: 'valid' as const,
      clean: true,
      label: 'after fuzzing',
      expected,
    };
    await checkCase(target, c);
  }
}
