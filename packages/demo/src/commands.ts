/**
 * The demo's commands: `demo` (or `npm start`) runs the embedded demo; `deploy`, `status`,
 * `approve`, `promote` and `merge` talk to a running one from another terminal. Every command
 * answers `--help`; a mistake prints the usage and exits 2, a failure one line and exits 1.
 */
import { flagOptions, quote, required, UsageError, valueOptions } from 'promotion-gateway';
import {
  chartVersionOf,
  demoCommand,
  portOf,
  runDemoCommand,
  type DemoCommand,
  type DemoIo,
} from './args.js';
import {
  approve,
  connect,
  deploy,
  promote,
  status,
  type DeploySpec,
  type RunningDemo,
} from './client.js';
import type { AppRef } from './flux.js';
import { APP_NAME, APP_RELEASE, TRAIN_APPS, TRAIN_NAMESPACE } from './objects.js';
import { merge } from './pull-requests.js';
import { runDemo } from './run.js';
import { stateDir } from './state.js';

export type { DemoIo } from './args.js';

const USAGE = `promotion-gateway demo: the gateway on a simulated fleet, with a Flux stand-in.

Usage:
  demo [--port 8080] [--view-port PORT+1] [--log pretty|json] [--no-banner] [--no-auto-rollout]
  demo deploy [--app APP] --env ENV --version X [--fail | --break-after-promotion] [--port 8080]
  demo status [--json] [--port 8080]
  demo approve --env ENV --revision X [--reject] [--port 8080]
  demo promote --env ENV --revision X [--port 8080]
  demo merge [--env prod] [--port 8080]
  demo COMMAND --help

From the repository: npm start, then npm run demo -- deploy --env dev --version 6.6.0
`;

const COMMAND_USAGE = {
  run: `Usage: demo [--port 8080] [--view-port PORT+1] [--log pretty|json] [--no-banner] [--no-auto-rollout]

Starts a simulated fleet (management, dev, staging, prod), a simulated GitHub holding the
fleet repository, and the gateway on 127.0.0.1:PORT with its web view on 127.0.0.1:VIEW-PORT
(anonymous read: demo only), with a Flux stand-in that rolls out what the gateway promotes
(prod: what is merged in Git); runs until Ctrl-C. Logs are readable lines on a terminal, JSON
otherwise (--log chooses).
`,
  deploy: `Usage: demo deploy [--app APP] --env ENV --version X [--fail | --break-after-promotion] [--port 8080]

Plays Flux: rolls ENV's HelmRelease to chart version X (with --fail, the upgrade fails:
Ready=False) and sends its signed event to the demo's gateway. X is a SemVer 2 version, as
Helm requires of a chart: 6.6.0, 6.7.0-rc.1, 6.7.0+build.5 (not v6.6.0). APP is podinfo (the
default), or api or web: the release train shop's apps, in namespace shop.

--break-after-promotion (with --env dev): X runs healthy in dev, but once the gateway promotes
it to staging, the Flux stand-in rolls staging out to X and then X's Helm tests fail there
(Ready=False, TestFailed). Within staging's automatic rollback window the gateway rolls staging
back to the version it ran before and holds X for staging and prod; \`demo status\` shows both.
`,
  status: `Usage: demo status [--json] [--port 8080]

The gateway's verified view of the demo pipeline: what each environment runs and why it
waits, as a table (--json: the API's answer as it is).
`,
  approve: `Usage: demo approve --env ENV --revision X [--reject] [--port 8080]

Signs an approval (or rejection) of X for ENV with the demo approver's key and sends it.
`,
  promote: `Usage: demo promote --env ENV --revision X [--port 8080]

Asks for the promotion of X to ENV as the demo CI job, with a token from the demo's issuer.
`,
  merge: `Usage: demo merge [--env prod] [--port 8080]

Merges the open pull request the gateway opened to promote ENV (as the demo maintainer, on
the demo's forge); the Flux stand-in then rolls ENV out to the version merged in Git.
`,
};

/** The demo running on `--port` (8080 by default). */
function demoOn(port: string | undefined): Promise<RunningDemo> {
  const number = portOf(port);
  return connect({ port: number, stateDir: stateDir(number) });
}

const RUN_OPTIONS = {
  ...valueOptions('port', 'view-port', 'log'),
  ...flagOptions('no-banner', 'no-auto-rollout'),
};

const RUN = demoCommand(COMMAND_USAGE.run, RUN_OPTIONS, (v, io) => {
  if (v.log !== undefined && v.log !== 'pretty' && v.log !== 'json')
    throw new UsageError('--log must be pretty or json');
  const port = portOf(v.port);
  const viewPort = v['view-port'] === undefined ? port + 1 : portOf(v['view-port'], '--view-port');
  if (viewPort === port) throw new UsageError('--view-port must differ from --port');
  return runDemo(
    {
      port,
      viewPort,
      stateDir: stateDir(port),
      banner: v['no-banner'] !== true,
      autoRollout: v['no-auto-rollout'] !== true,
      log: v.log ?? (io.tty ? 'pretty' : 'json'),
      ...(io.until === undefined ? {} : { until: io.until }),
    },
    io.env,
    io.out,
  );
});

const ENV_REVISION = valueOptions('port', 'env', 'revision');

/** The `--env` and `--revision` that approve and promote require. */
function envAndRevision(v: { env?: string; revision?: string }): { env: string; revision: string } {
  return { env: required(v.env, '--env'), revision: required(v.revision, '--revision') };
}

/** What `deploy` is asked; a UsageError for a version or a combination it refuses. */
function deploySpec(v: {
  app?: string;
  env?: string;
  version?: string;
  fail?: boolean;
  'break-after-promotion'?: boolean;
}): DeploySpec {
  const version = chartVersionOf(v.version);
  const env = v.env ?? 'dev';
  const breakAfterPromotion = v['break-after-promotion'] === true;
  if (breakAfterPromotion && v.fail === true)
    throw new UsageError('--fail and --break-after-promotion exclude each other');
  if (breakAfterPromotion && env !== 'dev')
    throw new UsageError(
      '--break-after-promotion needs --env dev: the version breaks staging once promoted there',
    );
  if (breakAfterPromotion && v.app !== undefined && v.app !== APP_NAME)
    throw new UsageError('--break-after-promotion is for podinfo only');
  return { app: appOf(v.app), env, version, fail: v.fail === true, breakAfterPromotion };
}

/** The HelmRelease `--app` names: podinfo's by default, or a release train app's. */
function appOf(app: string | undefined): AppRef {
  if (app === undefined || app === APP_NAME) return APP_RELEASE;
  if (TRAIN_APPS.some((a) => a.name === app)) return { namespace: TRAIN_NAMESPACE, name: app };
  const names = [APP_NAME, ...TRAIN_APPS.map((a) => a.name)].join(', ');
  throw new UsageError(`--app must be one of ${names}, not ${quote(app)}`);
}

/** The commands that talk to a running demo, by name; each checks its options first. */
const CLIENT_COMMANDS = new Map<string, DemoCommand>([
  [
    'deploy',
    demoCommand(
      COMMAND_USAGE.deploy,
      {
        ...valueOptions('port', 'app', 'env', 'version'),
        ...flagOptions('fail', 'break-after-promotion'),
      },
      async (v, io) => {
        // Checked before the demo is even looked for: a refused version touches nothing.
        const spec = deploySpec(v);
        return deploy(await demoOn(v.port), spec, io.out);
      },
    ),
  ],
  [
    'status',
    demoCommand(
      COMMAND_USAGE.status,
      { ...valueOptions('port'), ...flagOptions('json') },
      async (v, io) => status(await demoOn(v.port), v.json === true, io.out),
    ),
  ],
  [
    'approve',
    demoCommand(
      COMMAND_USAGE.approve,
      { ...ENV_REVISION, ...flagOptions('reject') },
      async (v, io) => {
        const spec = { ...envAndRevision(v), reject: v.reject === true };
        return approve(await demoOn(v.port), spec, io.out);
      },
    ),
  ],
  [
    'promote',
    demoCommand(COMMAND_USAGE.promote, ENV_REVISION, async (v, io) => {
      const spec = envAndRevision(v);
      return promote(await demoOn(v.port), spec, io.out);
    }),
  ],
  [
    'merge',
    demoCommand(COMMAND_USAGE.merge, valueOptions('port', 'env'), async (v, io) =>
      merge(await demoOn(v.port), v.env ?? 'prod', io.out),
    ),
  ],
]);

/** Runs the command `argv` names; resolves to its exit status. */
export async function main(argv: string[], io: DemoIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'help' || ((first === '--help' || first === '-h') && rest.length === 0)) {
    io.out.write(USAGE);
    return 0;
  }
  const client = first === undefined ? undefined : CLIENT_COMMANDS.get(first);
  if (client !== undefined) return runDemoCommand(client.usage, io.err, () => client.run(rest, io));
  if (first !== undefined && !first.startsWith('-'))
    return runDemoCommand(USAGE, io.err, () =>
      Promise.reject(new UsageError(`unknown command: ${first}`)),
    );
  return runDemoCommand(RUN.usage, io.err, () => RUN.run(argv, io));
}
