/**
 * The demo's commands: `demo` runs the whole story on one machine (a simulated fleet of
 * management, dev, staging and prod, the gateway wired to it on 127.0.0.1:8080, and a Flux
 * stand-in that rolls an environment out when the gateway promotes it); `demo deploy` plays
 * Flux for one environment; `demo status` prints the gateway's verified view.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import {
  createGateway,
  createLogger,
  defaultConfig,
  untilSignal,
  type Env,
} from 'promotion-gateway';
import { autoRollOut } from './auto-rollout.js';
import { startDemoFleet, GATEWAY_USER } from './fleet.js';
import { notify, rollOut } from './flux.js';
import { APP_NAME, APP_NAMESPACE, DEMO_ENVIRONMENTS, FLUX_NAMESPACE } from './objects.js';
import { defaultStatePath, readState, writeState } from './state.js';

const ISSUER = 'promotion-gateway-demo';
const AUDIENCE = 'promotion-gateway';

/** Runs the demo until SIGINT/SIGTERM; resolves to the exit code. */
export async function runDemo(
  args: string[],
  env: Env,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '8080' },
      state: { type: 'string' },
      'no-banner': { type: 'boolean', default: false },
      'no-auto-rollout': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const statePath = values.state ?? defaultStatePath();
  const demo = await startDemoFleet();
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const config = defaultConfig(
    {
      server: { host: '127.0.0.1', port: Number(values.port) },
      management: { name: 'management' },
      clusters: DEMO_ENVIRONMENTS.map((name) => ({
        name,
        gitopsCluster: { namespace: FLUX_NAMESPACE, name },
        hmacKeys: [{ value: demo.hmacKeys[name] ?? '' }],
        jwtSubjects: [],
      })),
      jwt: {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['ES256'],
        publicKeys: [{ value: await exportSPKI(publicKey) }],
      },
      resync: { intervalMs: 30_000 },
      logLevel: env.LOG_LEVEL === undefined ? 'info' : (env.LOG_LEVEL as 'info'),
    },
    { env },
  );
  const management = new KubeConfig();
  management.loadFromString(demo.fleet.cluster('management').kubeconfig(GATEWAY_USER));
  const logger = createLogger(config.logLevel);
  const gateway = await createGateway({ config, managementKubeConfig: management, logger });
  await gateway.start();
  const address = await gateway.listen();
  logger.info({ address }, 'gateway listening');
  const kubeconfig = join(dirname(statePath), 'fleet.kubeconfig');
  await mkdir(dirname(statePath), { recursive: true, mode: 0o700 });
  await demo.fleet.writeKubeconfig(kubeconfig);
  const viewerToken = await new SignJWT({ pipelines: ['*'] })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('demo-viewer')
    .setIssuedAt()
    .setExpirationTime('12h')
    .sign(privateKey);
  await writeState(statePath, {
    gatewayUrl: address,
    adminUrl: demo.fleet.adminUrl,
    kubeconfig,
    hmacKeys: demo.hmacKeys,
    viewerToken,
  });
  const stopRollouts = values['no-auto-rollout']
    ? () => Promise.resolve()
    : await autoRollOut({
        fleet: demo.fleet,
        gatewayUrl: address,
        hmacKeys: demo.hmacKeys,
        logger,
      });
  if (!values['no-banner']) out.write(banner(address, kubeconfig, statePath, values.state));
  await untilSignal();
  await stopRollouts();
  await gateway.close();
  await demo.fleet.close();
  return 0;
}

/** `demo deploy --env dev --version X`: what Flux does on a release, then its event. */
export async function runDemoDeploy(
  args: string[],
  _env: Env,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      env: { type: 'string', default: 'dev' },
      version: { type: 'string' },
      state: { type: 'string' },
    },
    strict: true,
  });
  if (values.version === undefined) {
    out.write('demo deploy: --version X is required\n');
    return 2;
  }
  const state = await readState(values.state ?? defaultStatePath());
  const key = state.hmacKeys[values.env];
  if (key === undefined) {
    out.write(
      `demo deploy: unknown environment ${values.env} (one of ${Object.keys(state.hmacKeys).join(', ')})\n`,
    );
    return 2;
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(state.kubeconfig);
  kubeConfig.setCurrentContext(values.env);
  const object = await rollOut(kubeConfig, values.version);
  const status = await notify(state.gatewayUrl, values.env, key, object, values.version);
  out.write(
    `${values.env}: HelmRelease ${APP_NAMESPACE}/${APP_NAME} now runs ${values.version}; event sent, gateway answered ${status}\n`,
  );
  return status === 202 ? 0 : 1;
}

/** `demo status`: the gateway's verified view of the demo pipeline. */
export async function runDemoStatus(args: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values } = parseArgs({ args, options: { state: { type: 'string' } }, strict: true });
  const state = await readState(values.state ?? defaultStatePath());
  const response = await fetch(`${state.gatewayUrl}/v1/pipelines/${APP_NAMESPACE}/${APP_NAME}`, {
    headers: { authorization: `Bearer ${state.viewerToken}` },
  });
  out.write(`${JSON.stringify(await response.json(), null, 2)}\n`);
  return response.ok ? 0 : 1;
}

function banner(
  address: string,
  kubeconfig: string,
  statePath: string,
  customState: string | undefined,
): string {
  const stateFlag = customState === undefined ? '' : ` --state ${statePath}`;
  return `
promotion-gateway demo is running.
  gateway:    ${address}  (Flux Provider address: ${address}/v1/events/<cluster>)
  fleet:      management, ${DEMO_ENVIRONMENTS.join(', ')}  (kubeconfig: ${kubeconfig})
  pipeline:   ${APP_NAMESPACE}/${APP_NAME}: ${DEMO_ENVIRONMENTS.join(' -> ')}

Next, in another terminal:
  npm run demo -- deploy --env dev --version 6.6.0${stateFlag}
      plays Flux: rolls dev to 6.6.0 and posts the signed event; watch this log for the hint,
      the read, the decision and the promotions to staging, then prod.
  npm run demo -- status${stateFlag}
      the verified state of every target and each environment's reason.
  kubectl --kubeconfig ${kubeconfig} --context management -n ${APP_NAMESPACE} get pipelines.pipelines.weave.works ${APP_NAME} -o yaml
Stop with Ctrl-C.
`;
}
