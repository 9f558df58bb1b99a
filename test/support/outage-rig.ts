/**
 * One gateway on kube-sim with every HTTP door served (approvals by statement and SSO, CI
 * promotions, the legacy approval and webhook, halts and lifts of one Pipeline and across
 * Pipelines, the read API and the web view), and one valid call per door, for the tests of
 * what each door answers while a Kubernetes API cannot serve.
 */
import { signBody } from '../../src/auth/hmac.js';
import type { ConfigInput } from '../../src/config/load.js';
import type { KubeObject } from '../../src/kube/ports.js';
import {
  approver,
  approverConfig,
  postPromotion,
  postStatement,
  startIssuer,
  statement,
  type TestApprover,
  type TestIssuer,
} from './authorizations.js';
import {
  APP_NAME,
  HR_API,
  createApp,
  eventually,
  launchGateway,
  pipelineOf,
  postSigned,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from './gateway-harness.js';
import { apiViewer, type ApiViewer } from './policy-harness.js';

const AUDIENCE = 'promotion-gateway';
const CI_CLAIMS = { repository: 'acme/podinfo', ref: 'refs/heads/main', sub: 'repo:acme/podinfo' };
/** The legacy `hmac-key` of every rig Pipeline. */
export const LEGACY_KEY = Buffer.from('outage-legacy-key');
/** What dev and staging run in a rig Pipeline, and so what prod waits to approve. */
export const REVISION = '6.6.0';

/** The fleet, the gateway and the credentials of every door. */
export interface OutageRig {
  fleet: TestFleet;
  gw: RunningGateway;
  alice: TestApprover;
  sso: TestIssuer;
  github: TestIssuer;
  viewer: ApiViewer;
  close(): Promise<void>;
}

/** The configuration that opens every door: alice signs, bob uses SSO, CI job e2e may ask. */
function everyDoor(parts: Pick<OutageRig, 'alice' | 'sso' | 'github' | 'viewer'>): ConfigInput {
  const { alice, sso, github, viewer } = parts;
  const issuer = (i: TestIssuer) => ({ issuer: i.issuer, audience: AUDIENCE, jwksUrl: i.jwksUrl });
  const policy = { name: 'e2e', issuer: 'github', claims: CI_CLAIMS, pipelines: ['*'] };
  return {
    jwt: viewer.jwt,
    approvals: {
      approvers: [
        ...approverConfig([alice]),
        { name: 'bob', oidcSubjects: [`${sso.issuer}#bob-sub`], groups: [] },
      ],
      oidc: issuer(sso),
      legacyEndpoint: true,
    },
    ci: {
      issuers: [{ name: 'github', ...issuer(github) }],
      policies: [{ ...policy, environments: ['prod'] }],
    },
    ui: { port: 0, anonymous: true },
  };
}

/** Starts the issuers, the fleet and one gateway serving every door (the view anonymous). */
export async function startOutageRig(): Promise<OutageRig> {
  const [alice, sso, github, viewer] = await Promise.all([
    approver('alice'),
    startIssuer('https://sso.example.com'),
    startIssuer('https://token.actions.githubusercontent.com'),
    apiViewer(),
  ]);
  const fleet = await startTestFleet();
  const gw = await launchGateway(fleet, { config: everyDoor({ alice, sso, github, viewer }) });
  const close = async () => {
    await gw.close();
    await fleet.close();
    await Promise.all([sso.close(), github.close()]);
  };
  return { fleet, gw, alice, sso, github, viewer, close };
}

/**
 * ns/podinfo (labelled `outage: ns`, with the legacy key) whose prod waits for two approvals of
 * REVISION by any of the doors, and a halt of dev by bob in force; resolves with its id.
 */
export async function prodWaitsWithHalt(rig: OutageRig, ns: string): Promise<string> {
  const { fleet, gw } = rig;
  const approvers = ['alice', 'bob', 'ci:e2e', 'legacy-hmac'];
  createApp(fleet, ns, {
    legacyKey: LEGACY_KEY,
    labels: { outage: ns },
    prodPromotion: { approval: { minApprovals: 2, approvers } },
  });
  await waitSteady(fleet, [gw], ns);
  rollOut(fleet.dev, ns, REVISION);
  rollOut(fleet.staging, ns, REVISION);
  await gw.gateway.resync();
  await gw.gateway.idle();
  await eventually(() => {
    const waiting = pipelineOf(fleet, ns).status?.environments?.prod?.waitingApproval;
    if (waiting?.revision !== REVISION)
      throw new Error(`prod waits for ${JSON.stringify(waiting)}`);
  });
  const res = await halt(rig, ns, { environment: 'dev', reason: 'freeze before the outage' });
  if (res.status !== 201) throw new Error(`the halt answered ${String(res.status)}`);
  return ((await res.json()) as { halt: { id: string } }).halt.id;
}

async function bearer(rig: OutageRig): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await rig.sso.token({ sub: 'bob-sub' })}` };
}

/** POSTs a halt of ns/podinfo by bob (SSO), with `body`. */
export function halt(rig: OutageRig, ns: string, body: unknown): Promise<Response> {
  return bearer(rig).then((auth) =>
    fetch(`${rig.gw.url}/v1/pipelines/${ns}/${APP_NAME}/halts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify(body),
    }),
  );
}

/** One call of a door, made afresh each time (a new credential id where it has one). */
export type DoorCall = () => Promise<Response>;

/** The approval doors: each reads the Pipeline (and the targets) before it writes anything. */
export function approvalDoors(rig: OutageRig, ns: string): Record<string, DoorCall> {
  const { gw, alice, github } = rig;
  const target = { pipeline: `${ns}/${APP_NAME}`, environment: 'prod', revision: REVISION };
  return {
    'approval by statement': async () =>
      postStatement(gw.url, ns, 'prod', await statement(alice, target)),
    'approval by SSO': async () =>
      fetch(`${gw.url}/v1/pipelines/${ns}/${APP_NAME}/environments/prod/approvals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(await bearer(rig)) },
        body: JSON.stringify({ revision: REVISION, decision: 'approve', comment: 'LGTM' }),
      }),
    'CI promotion': async () =>
      postPromotion(gw.url, ns, 'prod', await github.token(CI_CLAIMS), REVISION),
    'legacy approval': () =>
      fetch(`${gw.url}/approval/${ns}/${APP_NAME}/prod/${REVISION}`, {
        method: 'POST',
        headers: { 'x-signature': signBody(Buffer.alloc(0), LEGACY_KEY) },
      }),
  };
}

/** The halt doors: halts and lifts of one Pipeline and across Pipelines (status writes). */
export function haltDoors(rig: OutageRig, ns: string, haltId: string): Record<string, DoorCall> {
  const { gw } = rig;
  const json = async () => ({ 'content-type': 'application/json', ...(await bearer(rig)) });
  return {
    halt: () => halt(rig, ns, { environment: 'prod', reason: 'incident 42' }),
    lift: async () =>
      fetch(`${gw.url}/v1/pipelines/${ns}/${APP_NAME}/halts/${haltId}`, {
        method: 'DELETE',
        headers: await bearer(rig),
      }),
    'halt across Pipelines': async () =>
      fetch(`${gw.url}/v1/halts`, {
        method: 'POST',
        headers: await json(),
        body: JSON.stringify({
          namespace: ns,
          selector: `outage=${ns}`,
          environment: 'prod',
          reason: 'incident 43',
        }),
      }),
    'lift across Pipelines': async () =>
      fetch(`${gw.url}/v1/halts/${haltId}`, { method: 'DELETE', headers: await bearer(rig) }),
  };
}

/** The doors that answer from what the gateway holds, with the status each answers. */
export function memoryDoors(rig: OutageRig, ns: string): Record<string, [DoorCall, number]> {
  const { fleet, gw, viewer } = rig;
  const dev = () => fleet.dev.get(HR_API, 'HelmRelease', ns, APP_NAME) as unknown as KubeObject;
  const view = gw.gateway.uiAddress() ?? '';
  return {
    'Flux event': [
      () => postSigned(gw.url, '/v1/events/dev', upgradeBody(dev()), fleet.key('dev')),
      202,
    ],
    'legacy webhook': [
      () => postSigned(gw.url, `/promotion/${ns}/${APP_NAME}/prod`, Buffer.from('{}'), LEGACY_KEY),
      202,
    ],
    'read API': [
      async () => {
        const token = await viewer.token({ sub: 'viewer', pipelines: [`${ns}/*`] });
        const headers = { authorization: `Bearer ${token}` };
        return fetch(`${gw.url}/v1/pipelines/${ns}/${APP_NAME}`, { headers });
      },
      200,
    ],
    'web view': [() => fetch(`${view}/pipelines/${ns}/${APP_NAME}`), 200],
  };
}
