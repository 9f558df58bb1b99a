/**
 * `demo` (and `npm start`): a simulated fleet (management, dev, staging, prod), a simulated
 * GitHub holding the fleet repository, the gateway wired to both on 127.0.0.1:<port>, Flux
 * stand-ins that roll out what the gateway promotes (prod: what is merged in Git), a demo
 * approver and a demo CI issuer, until Ctrl-C. Everything it starts is stopped, and its state
 * directory removed, however it ends.
 */
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SignJWT, exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import {
  KubeConfig,
  createGateway,
  createLogger,
  defaultConfig,
  untilSignal,
  type Env,
} from 'promotion-gateway';
import { DemoError } from './args.js';
import { autoRollOut } from './auto-rollout.js';
import { DEMO_CI, startIssuer, type DemoIssuer } from './ci-issuer.js';
import { startDemoFleet, GATEWAY_USER, type DemoFleet } from './fleet.js';
import { FLEET_REPO, startDemoForge, type DemoForge } from './fleet-repo.js';
import { watchGit } from './git-flux.js';
import { startDemoReceiver, type DemoReceiver } from './notifications.js';
import {
  APP_NAME,
  APP_NAMESPACE,
  DEMO_APPROVER,
  DEMO_ENVIRONMENTS,
  DEMO_ROLLBACK_WINDOW,
  DEMO_SOAK,
  FLUX_NAMESPACE,
  TRAIN_NAME,
  TRAIN_NAMESPACE,
} from './objects.js';
import { prettyDestination } from './pretty-log.js';
import { removeState, writeState, type DemoState } from './state.js';

/** How the demo runs. */
export interface DemoOptions {
  port: number;
  /** The web view's port (anonymous read: demo only); 0 picks a free one. */
  viewPort: number;
  stateDir: string;
  banner: boolean;
  autoRollout: boolean;
  /** Readable lines, or the gateway's JSON lines. */
  log: 'pretty' | 'json';
  /** Ends the demo; SIGINT or SIGTERM when absent. */
  until?: Promise<unknown>;
  /** Where the log goes (stdout when absent). */
  logTo?: NodeJS.WritableStream;
}

const VIEWER = { issuer: 'promotion-gateway-demo', audience: 'promotion-gateway' };
/** How often the gateway reads an open pull request's state again; short, for the demo. */
const PULL_REQUEST_REFRESH_MS = 2000;

/** What the demo starts before the gateway, and wires it to. */
interface DemoParts {
  demo: DemoFleet;
  issuer: DemoIssuer;
  git: DemoForge;
  receiver: DemoReceiver;
}

/** Resolves when `port` on 127.0.0.1 can be listened on; a DemoError when it is taken. */
export function ensurePortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      const taken = err.code === 'EADDRINUSE' || err.code === 'EACCES';
      reject(taken ? portTaken(port) : err);
    });
    probe.listen(port, '127.0.0.1', () => {
      probe.close(() => {
        resolve();
      });
    });
  });
}

// The next free pair is 10 ports on: a demo takes its port and the next (the view's).
function portTaken(port: number): DemoError {
  return new DemoError(
    `port ${String(port)} is in use: is a demo already running? Stop it, or start this one with \`npm start -- --port ${String(port + 10)}\``,
  );
}

/** Runs the demo until SIGINT/SIGTERM; resolves to the exit code. */
export async function runDemo(
  options: DemoOptions,
  env: Env,
  out: NodeJS.WritableStream,
): Promise<number> {
  await ensurePortFree(options.port);
  if (options.viewPort !== 0) await ensurePortFree(options.viewPort);
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const demo = await startDemoFleet();
    stops.push(() => demo.fleet.close());
    const git = await startDemoForge(demo.fleet);
    stops.push(() => git.forge.close());
    const issuer = await startIssuer();
    stops.push(() => issuer.close());
    const receiver = await startDemoReceiver(demo.fleet);
    stops.push(() => receiver.stop());
    const started = await startGateway(options, env, { demo, issuer, git, receiver });
    stops.push(() => started.gateway.close());
    receiver.subscribe(started.logger);
    stops.push(() => removeState(options.stateDir));
    await writeState(options.stateDir, started.state);
    if (options.autoRollout) {
      const stop = await autoRollOut({ ...started, fleet: demo.fleet, hmacKeys: demo.hmacKeys });
      stops.push(stop);
      const gitFlux = { ...started, forge: git.forge, fleet: demo.fleet };
      const hmacKey = demo.hmacKeys.prod ?? '';
      stops.push(watchGit({ ...gitFlux, hmacKey, delayMs: PULL_REQUEST_REFRESH_MS }));
    }
    if (options.banner) out.write(banner(started.state, git.repoUrl, options.port));
    await (options.until ?? untilSignal());
    return 0;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

async function startGateway(options: DemoOptions, env: Env, parts: DemoParts) {
  const { demo, issuer, git } = parts;
  const viewerKeys = await generateKeyPair('ES256');
  const approverKeys = await generateKeyPair('EdDSA', { extractable: true });
  const config = demoConfig(options, env, parts, {
    viewer: await exportSPKI(viewerKeys.publicKey),
    approver: await exportSPKI(approverKeys.publicKey),
  });
  const management = new KubeConfig();
  management.loadFromString(demo.fleet.cluster('management').kubeconfig(GATEWAY_USER));
  const logger = createLogger(config.logLevel, logDestination(options));
  const gateway = await createGateway({ config, managementKubeConfig: management, logger });
  await gateway.start();
  const gatewayUrl = await gateway.listen().catch(async (err: unknown) => {
    await gateway.close();
    throw (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? portTaken(options.port) : err;
  });
  logger.info({ address: gatewayUrl }, 'gateway listening');
  const viewUrl = gateway.uiAddress() ?? '';
  logger.info({ address: viewUrl }, 'view listening');
  const kubeconfig = join(options.stateDir, 'fleet.kubeconfig');
  await mkdir(options.stateDir, { recursive: true, mode: 0o700 });
  await demo.fleet.writeKubeconfig(kubeconfig);
  const viewerToken = await new SignJWT({ pipelines: ['*'] })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(VIEWER.issuer)
    .setAudience(VIEWER.audience)
    .setSubject('demo-viewer')
    .setIssuedAt()
    .setExpirationTime('12h')
    .sign(viewerKeys.privateKey);
  const state = {
    gatewayUrl,
    viewUrl,
    adminUrl: demo.fleet.adminUrl,
    kubeconfig,
    hmacKeys: demo.hmacKeys,
    viewerToken,
    approver: { name: DEMO_APPROVER, privateKeyPem: await exportPKCS8(approverKeys.privateKey) },
    ci: {
      issuer: issuer.issuer,
      audience: issuer.audience,
      privateKeyPem: issuer.privateKeyPem,
      repository: DEMO_CI.repository,
    },
    forge: { apiUrl: git.forge.apiUrl, repo: FLEET_REPO, token: git.maintainerToken },
  };
  return { gateway, logger, gatewayUrl, state };
}

/**
 * The gateway's configuration for the demo: its clusters, viewer JWT, approver, CI issuer, the
 * forge its pull requests go to (plain HTTP on loopback, which only a demo may allow) and the
 * address of the demo's notification subscriber, opened in the alerts' allow-list.
 */
function demoConfig(
  options: DemoOptions,
  env: Env,
  { demo, issuer, git, receiver }: DemoParts,
  keys: { viewer: string; approver: string },
) {
  return defaultConfig(
    {
      server: { host: '127.0.0.1', port: options.port },
      // The web view, read by anyone who reaches it: for a demo on loopback only (docs/ui.md).
      ui: { port: options.viewPort, anonymous: true },
      management: { name: 'management' },
      clusters: DEMO_ENVIRONMENTS.map((name) => ({
        name,
        gitopsCluster: { namespace: FLUX_NAMESPACE, name },
        hmacKeys: [{ value: demo.hmacKeys[name] ?? '' }],
      })),
      jwt: {
        ...VIEWER,
        algorithms: ['ES256'],
        publicKeys: [{ value: keys.viewer }],
      },
      approvals: {
        approvers: [
          {
            name: DEMO_APPROVER,
            publicKeys: [{ value: keys.approver }],
          },
        ],
      },
      ci: {
        issuers: [
          {
            name: 'demo-ci',
            issuer: issuer.issuer,
            audience: issuer.audience,
            jwksUrl: issuer.jwksUrl,
          },
        ],
        policies: [
          {
            name: DEMO_CI.policy,
            issuer: 'demo-ci',
            claims: {
              repository: DEMO_CI.repository,
              workflow_ref: `${DEMO_CI.repository}/.github/workflows/e2e.yml@*`,
            },
            pipelines: [`${APP_NAMESPACE}/${APP_NAME}`],
            environments: ['prod'],
          },
        ],
      },
      promotion: {
        pullRequest: {
          allowPlainHttp: true,
          allowedHosts: [git.host],
          refreshIntervalMs: PULL_REQUEST_REFRESH_MS,
        },
      },
      // The demo's subscriber is on loopback, which alerts reach only where the operator
      // writes its address (docs/notifications.md, "Where alerts may deliver").
      notifications: { allowedUrlPrefixes: [receiver.address] },
      resync: { intervalMs: 30_000 },
      logLevel: env.LOG_LEVEL === undefined ? 'info' : (env.LOG_LEVEL as 'info'),
    },
    { env },
  );
}

function logDestination(options: DemoOptions) {
  const out = options.logTo ?? process.stdout;
  if (options.log === 'pretty') return prettyDestination(out);
  return options.logTo === undefined
    ? undefined
    : { write: (line: string) => void out.write(line) };
}

function banner(state: DemoState, repoUrl: string, port: number): string {
  const flag = port === 8080 ? '' : ` --port ${String(port)}`;
  const { gatewayUrl: address, kubeconfig, viewUrl } = state;
  return `
promotion-gateway demo is running.
  view:       ${viewUrl}  (open it in a browser: the fleet, live; anonymous read, demo only)
  gateway:    ${address}  (Flux Provider address: ${address}/v1/events/<cluster>)
  fleet:      management, ${DEMO_ENVIRONMENTS.join(', ')}  (kubeconfig: ${kubeconfig})
  git:        ${repoUrl}  (simulated GitHub; Flux syncs prod from its main branch)
  pipeline:   ${APP_NAMESPACE}/${APP_NAME}: ${DEMO_ENVIRONMENTS.join(' -> ')}; staging soaks ${DEMO_SOAK} on dev and rolls back by itself when a promotion breaks it within ${DEMO_ROLLBACK_WINDOW}; prod waits for an approval, then promotes by pull request
  train:      ${TRAIN_NAMESPACE}/${TRAIN_NAME}: api and web (web after api); staging and prod take only a combination of their versions seen together upstream

Next, in another terminal:
  npm run demo -- deploy --env dev --version 6.6.0${flag}
      plays Flux: rolls dev to 6.6.0 and sends its signed event; this log shows the verified
      read, staging soaking (status shows the time left), the promotion of staging ${DEMO_SOAK}
      later, the stand-in rolling staging out, and prod waiting.
  npm run demo -- status${flag}
  npm run demo -- approve --env prod --revision 6.6.0${flag}      (or: promote, as a CI job)
      the gateway opens a pull request changing prod's version in Git (status shows it)
  npm run demo -- merge --env prod${flag}
      a person merges it; the stand-in applies the merged version, the gateway verifies prod
  npm run demo -- deploy --env dev --version 6.7.0 --fail${flag}  (a failed rollout: nothing moves)
  npm run demo -- deploy --env dev --version 6.9.0 --break-after-promotion${flag}
      6.9.0 runs healthy in dev and is promoted to staging, then its Helm tests fail there: the
      gateway rolls staging back to the version before it and holds 6.9.0 for staging and prod;
      status shows the rollback and the hold. The next version deployed flows on as usual.
  kubectl --kubeconfig ${kubeconfig} --context management -n ${APP_NAMESPACE} get pipelines.pipelines.weave.works ${APP_NAME} -o yaml
  kubectl --kubeconfig ${kubeconfig} --context management -n ${APP_NAMESPACE} get palert
      the demo's subscription: each event it was sent is in this log as "notification received"
  npm run demo -- deploy --app api --env dev --version 1.5.0${flag}  (then --app web ... 2.4.0)
      the train takes the new combination to staging, then prod, api before web in each
  node dist/server.js status -n ${TRAIN_NAMESPACE} --kubeconfig ${kubeconfig} --context management
      the train's apps and, per environment, the combination its release takes
Stop with Ctrl-C.
`;
}
