/**
 * A whole gateway on kube-sim with every door open, for the end-to-end fuzz: the fleet's
 * clusters and HMAC keys, a Pipeline with a legacy key, the API's JWT key, approvers alice and
 * bob, an SSO and a CI issuer whose key sets a loopback server publishes, and the web view. What
 * the fuzzer observes is what a stranger must never move: the Pipeline's stored object, the
 * gateway's queues, and the requests every cluster served (the gateway's own background
 * traffic aside).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Observation } from './check.js';
import {
  AUDIENCE,
  CI_CLAIMS,
  CI_ISSUER,
  ISSUER,
  SSO_ISSUER,
  doorKeys,
  type DoorContext,
} from './doors-app.js';
import type { Signer } from './jws.js';
import {
  APP_NAME,
  ENVIRONMENTS,
  PIPELINE_API,
  createApp,
  launchGateway,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../gateway-harness.js';
import type { ConfigInput } from '../../../src/config/input.js';

/** Publishes each signer's public key as a JWKS at /<name>. */
async function serveKeySets(
  signers: Record<string, Signer>,
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const signer = signers[(request.url ?? '').slice(1)];
    response.writeHead(signer === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: signer === undefined ? [] : [signer.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, server };
}

function gatewayConfig(context: DoorContext, jwks: string): ConfigInput {
  const { keys } = context;
  // The limits the fuzzer's model judges tokens by (requests-approvals.ts, OIDC).
  const limits = { maxTokenAgeSeconds: 3600, clockToleranceSeconds: 30 };
  const issuer = (iss: string, path: string) => ({
    issuer: iss,
    audience: AUDIENCE,
    jwksUrl: `${jwks}/${path}`,
    ...limits,
  });
  return {
    jwt: {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['RS256'],
      publicKeys: [{ value: keys.api.publicPem }],
    },
    approvals: {
      approvers: [
        {
          name: 'alice',
          publicKeys: [{ value: keys.alice.publicPem }],
          oidcSubjects: [`${SSO_ISSUER}#alice-sub`],
          groups: [],
        },
        { name: 'bob', publicKeys: [{ value: keys.bob.publicPem }], groups: [] },
      ],
      oidc: issuer(SSO_ISSUER, 'sso'),
      legacyEndpoint: true,
    },
    ci: {
      issuers: [{ name: 'github', ...issuer(CI_ISSUER, 'ci') }],
      policies: [
        {
          name: 'deploy',
          issuer: 'github',
          claims: { ...CI_CLAIMS },
          pipelines: ['*'],
          environments: ['prod'],
        },
      ],
    },
    ui: { port: 0 },
  };
}

/** The running gateway, what its doors take, and what the fuzzer watches. */
export interface GatewayDoors {
  gw: RunningGateway;
  context: DoorContext;
  /** The view's port. */
  uiPort: number;
  observe(): Observation;
  close(): Promise<void>;
}

/** Every request the clusters served, less the gateway's own background (Lease, watch, alerts, trains). */
function clusterRequests(fleet: TestFleet): number {
  const management = fleet.management.requests;
  const pipelines = 'pipelines.pipelines.weave.works';
  const background =
    management.count({ resource: 'leases.coordination.k8s.io' }) +
    management.count({ resource: 'promotionalerts.notifications.promotion-gateway.dev' }) +
    management.count({ resource: 'promotiontrains.pipelines.promotion-gateway.dev' }) +
    management.count({ resource: pipelines, verb: 'watch' }) +
    management.count({ resource: pipelines, verb: 'list' });
  const total = ['management', ...ENVIRONMENTS].reduce(
    (sum, name) => sum + fleet.env(name).requests.snapshot().total,
    0,
  );
  return total - background;
}

/** Starts the gateway on `fleet` with Pipeline `ns`/podinfo, steady at its first revision. */
export async function startGatewayDoors(fleet: TestFleet, ns: string): Promise<GatewayDoors> {
  const keys = doorKeys();
  const legacyKey = Buffer.from(`legacy-key-of-${ns}-0123456789`);
  const clusters = ENVIRONMENTS.map((name) => ({ name, keys: [fleet.key(name)] }));
  const context: DoorContext = {
    keys,
    pipeline: { namespace: ns, name: APP_NAME },
    legacyKey,
    clusters,
  };
  const jwks = await serveKeySets({ sso: keys.sso, ci: keys.ci });
  createApp(fleet, ns, { legacyKey, prodPromotion: { manual: true } });
  const gw = await launchGateway(fleet, {
    instanceId: `fuzz-${ns}`,
    config: gatewayConfig(context, jwks.url),
  });
  await waitSteady(fleet, [gw], ns);
  const address = gw.gateway.uiAddress();
  if (address === undefined) throw new Error('the view is not listening');
  const observe = (): Observation => {
    const pipeline = fleet.management.get(PIPELINE_API, 'Pipeline', ns, APP_NAME) as
      { metadata?: { resourceVersion?: string } } | undefined;
    const { hints, pipelines } = gw.gateway.status();
    const queued = (q: typeof hints) =>
      `${String(q.queued)}/${String(q.coalesced)}/${String(q.rejected)}`;
    const effects = [
      `pipeline ${pipeline?.metadata?.resourceVersion ?? 'gone'}`,
      `hints ${queued(hints)}`,
      `rechecks ${queued(pipelines)}`,
    ];
    return { effects, reads: clusterRequests(fleet) };
  };
  const close = async () => {
    await gw.close();
    await new Promise((resolve) => jwks.server.close(resolve));
  };
  return { gw, context, uiPort: Number(new URL(address).port), observe, close };
}
