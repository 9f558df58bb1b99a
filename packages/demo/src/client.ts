/**
 * The commands that talk to a running demo from another terminal: `deploy` (play Flux),
 * `status` (the gateway's verified view, as a table, and the pull requests, rollback and holds),
 * `approve` (the demo approver signs) and `promote` (the demo CI job asks); `merge` is in
 * pull-requests.ts. Each finds the demo by its port.
 */
import { previewLines } from './preview-lines.js';
import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { importPKCS8 } from 'jose';
import { policyLine, signStatement, UsageError, type PolicyView } from 'promotion-gateway';
import { DemoError } from './args.js';
import { markBreakAfterPromotion } from './chart-faults.js';
import { mintCiToken } from './ci-issuer.js';
import { notify, rollOut, type AppRef } from './flux.js';
import { APP_NAME, APP_NAMESPACE } from './objects.js';
import { notRunning, readState, type DemoState } from './state.js';
import { recordLines } from './status-lines.js';

/** Where the running demo is. */
export interface Target {
  port: number;
  stateDir: string;
}

/** A running demo: its port, and what it left for the commands of other terminals. */
export interface RunningDemo {
  port: number;
  state: DemoState;
}

/** The demo running at `target`; a DemoError saying how to start one when none runs. */
export async function connect(target: Target): Promise<RunningDemo> {
  return { port: target.port, state: await readState(target.stateDir, target.port) };
}

const PIPELINE_PATH = `/v1/pipelines/${APP_NAMESPACE}/${APP_NAME}`;

/** fetch, with "no demo is running" for a gateway that does not answer. */
async function call(demo: RunningDemo, url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    throw notRunning(demo.port);
  }
}

function environmentOf(state: DemoState, env: string): string {
  const key = state.hmacKeys[env];
  if (key === undefined)
    throw new UsageError(
      `unknown environment ${env} (one of ${Object.keys(state.hmacKeys).join(', ')})`,
    );
  return key;
}

/** What `deploy` rolls out, and how it goes. */
export interface DeploySpec {
  /** The app's HelmRelease: podinfo's, or one of the release train's. */
  app: AppRef;
  env: string;
  version: string;
  /** The upgrade fails where it is deployed. */
  fail: boolean;
  /** It runs healthy where deployed, and its Helm tests fail once promoted to staging. */
  breakAfterPromotion: boolean;
}

/**
 * `deploy --env E --version X [--fail | --break-after-promotion]`: what Flux does on a release,
 * then its event; a version to break once promoted is marked before it is rolled out.
 */
export async function deploy(
  { port, state }: RunningDemo,
  args: DeploySpec,
  out: NodeJS.WritableStream,
): Promise<number> {
  const key = environmentOf(state, args.env);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(state.kubeconfig);
  if (args.breakAfterPromotion) {
    kubeConfig.setCurrentContext('management');
    await markBreakAfterPromotion(kubeConfig, args.version).catch(() => {
      throw notRunning(port);
    });
  }
  kubeConfig.setCurrentContext(args.env);
  const object = await rollOut(kubeConfig, args.version, args.fail, args.app).catch(() => {
    throw notRunning(port);
  });
  const status = await notify(state.gatewayUrl, args.env, key, object, args.version).catch(() => {
    throw notRunning(port);
  });
  const what = args.fail
    ? `failed to upgrade to ${args.version} (Ready=False)`
    : `now runs ${args.version}${args.breakAfterPromotion ? ' (its Helm tests will fail once it is promoted to staging)' : ''}`;
  out.write(
    `${args.env}: HelmRelease ${args.app.namespace}/${args.app.name} ${what}; event sent, gateway answered ${String(status)}\n`,
  );
  return status === 202 ? 0 : 1;
}

interface View {
  targets: Record<string, { health: string; revision?: string; reason: string }[]>;
  decisions: {
    environment: string;
    outcome: string;
    revision?: string;
    reason: string;
    message: string;
    gate?: { summary?: string };
  }[];
  /** Each gated environment's policy gates (halts, windows, soak, checks). */
  policy?: Record<string, PolicyView>;
}

/**
 * `status [--json]`: the gateway's verified view of the demo pipeline; then its pull requests,
 * rollback and holds.
 */
export async function status(
  demo: RunningDemo,
  json: boolean,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { state } = demo;
  const response = await call(demo, `${state.gatewayUrl}${PIPELINE_PATH}`, {
    headers: { authorization: `Bearer ${state.viewerToken}` },
  });
  const body = (await response.json()) as View;
  if (!response.ok)
    throw new DemoError(`the gateway answered ${String(response.status)}: ${JSON.stringify(body)}`);
  out.write(json ? `${JSON.stringify(body, null, 2)}\n` : table(body, Date.now()));
  if (json) return 0;
  out.write(await recordLines(state));
  const waiting = body.decisions.filter((d) => d.outcome === 'WaitingApproval');
  const read = async (path: string) => {
    const answer = await call(demo, `${state.gatewayUrl}${path}`, {
      headers: { authorization: `Bearer ${state.viewerToken}` },
    });
    return { ok: answer.ok, body: await answer.json() };
  };
  out.write(
    await previewLines(
      read,
      PIPELINE_PATH,
      waiting.map((d) => d.environment),
    ),
  );
  return 0;
}

/**
 * The view as a table a person reads: one row per environment; a POLICY column (the soak's
 * time left counted from `now`, the windows, halts and checks) when some environment has one.
 */
export function table(view: View, now: number): string {
  const rows = view.decisions.map((d) => {
    const running = (view.targets[d.environment] ?? [])
      .map((t) => `${t.revision ?? '?'} (${t.health})`)
      .join(', ');
    const gate = d.gate?.summary === undefined ? '' : `, ${d.gate.summary}`;
    return [
      d.environment,
      running,
      `${d.outcome}${d.revision === undefined ? '' : ` ${d.revision}`}`,
      `${d.reason}${gate}`,
      policyLine(view.policy?.[d.environment], now),
    ];
  });
  const policy = rows.some((r) => r[4] !== '');
  const header = ['ENVIRONMENT', 'RUNNING', 'DECISION', 'REASON', ...(policy ? ['POLICY'] : [])];
  const all = [header, ...rows.map((r) => (policy ? r : r.slice(0, 4)))];
  const last = header.length - 1;
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return (
    all
      .map((r) =>
        r
          .map((cell, i) => (i < last ? cell.padEnd(widths[i] ?? 0) : cell))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** `approve --env E --revision X [--reject]`: the demo approver's signed statement. */
export async function approve(
  demo: RunningDemo,
  args: { env: string; revision: string; reject: boolean },
  out: NodeJS.WritableStream,
): Promise<number> {
  const { state } = demo;
  const now = Math.floor(Date.now() / 1000);
  const key = await importPKCS8(state.approver.privateKeyPem, 'EdDSA');
  const jws = await signStatement(
    {
      sub: state.approver.name,
      pipeline: `${APP_NAMESPACE}/${APP_NAME}`,
      environment: args.env,
      revision: args.revision,
      decision: args.reject ? 'reject' : 'approve',
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    },
    key,
    'EdDSA',
  );
  const response = await call(
    demo,
    `${state.gatewayUrl}${PIPELINE_PATH}/environments/${args.env}/approvals`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/jose' },
      body: jws,
    },
  );
  return answered(
    response,
    `${state.approver.name} ${args.reject ? 'rejected' : 'approved'} ${args.revision} for ${args.env}`,
    out,
    args,
  );
}

/** `promote --env E --revision X`: the demo CI job's token asks for the promotion. */
export async function promote(
  demo: RunningDemo,
  args: { env: string; revision: string },
  out: NodeJS.WritableStream,
): Promise<number> {
  const { state } = demo;
  const token = await mintCiToken(state.ci);
  const response = await call(
    demo,
    `${state.gatewayUrl}${PIPELINE_PATH}/environments/${args.env}/promotions`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ revision: args.revision }),
    },
  );
  return answered(
    response,
    `CI (${state.ci.repository}) asked to promote ${args.revision} to ${args.env}`,
    out,
    args,
  );
}

async function answered(
  response: Response,
  what: string,
  out: NodeJS.WritableStream,
  asked: { env: string; revision: string },
): Promise<number> {
  const body = (await response.json()) as { message?: string; code?: string };
  out.write(
    `${what}: ${String(response.status)} ${body.code ?? ''} ${body.message ?? ''}`.trimEnd() + '\n',
  );
  // The gateway says to roll the revision out upstream first: in the demo, that is a deploy.
  if (body.code === 'NotWaiting' && body.message?.endsWith('then ask again') === true)
    out.write(notWaitingHint(asked));
  return response.status === 202 ? 0 : 1;
}

/** The demo's commands for "roll it out upstream first". */
function notWaitingHint({ env, revision }: { env: string; revision: string }): string {
  return `next: deploy it to dev (npm run demo -- deploy --env dev --version ${revision}), wait until \`npm run demo -- status\` shows ${env} WaitingApproval ${revision}, then ask again\n`;
}
