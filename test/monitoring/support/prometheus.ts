/**
 * The monitoring tests' Prometheus: Debian's `prometheus` package (installed by .ci/run with
 * apt-get), its /usr/bin/promtool and /usr/bin/prometheus. Where they are missing, CI (CI=true)
 * fails with a message saying how to install them; elsewhere the tests are skipped with that
 * note. A server started here has its own config, port and temporary storage, so a packaged
 * service running on the machine (or not) changes nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort } from '../../support/net.js';
import { eventually } from '../../support/poll.js';
import { tempDir } from '../../support/temp-dirs.js';

/** Where Debian's package puts them. */
export const PROMTOOL_PATH = '/usr/bin/promtool';
export const PROMETHEUS_PATH = '/usr/bin/prometheus';

const MISSING = `Prometheus is not installed (${PROMETHEUS_PATH}, ${PROMTOOL_PATH}): the monitoring tests run Debian's prometheus package (apt-get install --no-install-recommends prometheus; .ci/run installs it)`;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether both binaries are there to run. */
export function prometheusInstalled(): boolean {
  return executable(PROMTOOL_PATH) && executable(PROMETHEUS_PATH);
}

/**
 * Whether this run skips the tests that need Prometheus: only outside CI, and only when it is
 * missing (said on stderr, so a skipped run is not mistaken for a passing one).
 */
export function skipPrometheusTests(): boolean {
  if (prometheusInstalled() || process.env.CI === 'true') return false;
  process.stderr.write(`monitoring tests skipped: ${MISSING}\n`);
  return true;
}

/** One promtool run: its exit status and its output (stdout and stderr). */
export function promtool(...args: string[]): { status: number | null; output: string } {
  if (!executable(PROMTOOL_PATH)) throw new Error(MISSING);
  const run = spawnSync(PROMTOOL_PATH, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A running Prometheus server. */
export interface PrometheusServer {
  readonly url: string;
  /** Evaluates `query` now (GET /api/v1/query) and returns `data.result`. */
  query(query: string): Promise<QueryResult[]>;
  /** GET `path` (e.g. /api/v1/rules) and returns `data`. */
  api(path: string): Promise<unknown>;
  stop(): Promise<void>;
}

/** One series of an instant vector (or the single value of a scalar). */
export interface QueryResult {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * Starts Prometheus on a free loopback port scraping `targets` (host:port) every second as job
 * `promotion-gateway`, evaluating `ruleFiles` every second; resolves once it answers ready.
 */
export async function startPrometheus(
  targets: readonly string[],
  ruleFiles: readonly string[],
): Promise<PrometheusServer> {
  if (!executable(PROMETHEUS_PATH)) throw new Error(MISSING);
  const dir = tempDir('prometheus-');
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, prometheusConfig(targets, ruleFiles));
  const port = await closedPort();
  const url = `http://127.0.0.1:${String(port)}`;
  const child = spawn(
    PROMETHEUS_PATH,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${log}`);
      return (await fetch(`${url}/-/ready`)).ok;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const api = async (path: string): Promise<unknown> => {
    const body = (await (await fetch(`${url}${path}`)).json()) as { status: string; data: unknown };
    if (body.status !== 'success') throw new Error(`${path}: ${JSON.stringify(body)}`);
    return body.data;
  };
  return {
    url,
    api,
    query: async (query) => {
      const data = (await api(`/api/v1/query?query=${encodeURIComponent(query)}`)) as {
        result: QueryResult[];
      };
      return data.result;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function prometheusConfig(targets: readonly string[], ruleFiles: readonly string[]): string {
  return JSON.stringify({
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: [{ job_name: 'promotion-gateway', static_configs: [{ targets }] }],
  });
}
