/**
 * `promotion-gateway status`: the operator's view of the fleet, as `flux get` gives one of Flux
 * objects. It reads the Pipelines through a kubeconfig (the operator's own credentials, no
 * gateway token needed) and prints per environment what runs, what waits and for whom, and the
 * open pull request, from the records the gateway keeps in each Pipeline's status, and each
 * release train's combination per environment from the PromotionTrains' status.
 */
import { parseArgs } from 'node:util';
import { realScheduler, type Scheduler } from '../clock.js';
import { withKubeRest } from '../kube/rest.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import { runCommand, UsageError, type CommandIo } from './args.js';
import {
  contextNamespace,
  managementKubeConfig,
  READ_TIMEOUT_MS,
  readPipelines,
} from './stored-pipelines.js';
import { environmentRows, renderDetail, renderJson, renderTable } from './status-view.js';
import { readTrains, renderTrains } from './train-view.js';

/** `status --help`. */
export const STATUS_USAGE = `Usage: promotion-gateway status [NAMESPACE/PIPELINE] [-n NAMESPACE | -A] [--watch] [--json]
                                [--kubeconfig PATH] [--context NAME] [--interval SECONDS]

Reads the Pipelines through a kubeconfig (--kubeconfig, else $KUBECONFIG's files, else ~/.kube/config)
and prints one row per environment: the revision its targets run, how many are ready, what it
waits for (an approval, a rollout, a retry), its policy gates (halts, windows, soak, checks) and
the open pull request; then one row per release train and environment: the combination its
release takes, its state and the members it waits for. NAMESPACE/PIPELINE prints that Pipeline in detail: conditions, every
target, the policy gates, the approvals recorded and the last promotion.
--watch prints again whenever something changes (every --interval seconds, default 2) until
interrupted; --json prints the Pipelines' rows and records as JSON.
`;

const OPTIONS = {
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  watch: { type: 'boolean', short: 'w' },
  json: { type: 'boolean' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  interval: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What one run asks for. */
interface StatusRequest {
  /** Undefined with -A: every namespace. */
  namespace: string | undefined;
  /** No -n and no -A: the kubeconfig context's namespace, as kubectl does. */
  contextNamespace: boolean;
  name: string | undefined;
  json: boolean;
  watch: boolean;
  intervalMs: number;
}

/**
 * The wall clock and a timer that, unlike realScheduler's, keeps the process up: between two
 * prints of a --watch nothing else does.
 */
const watchScheduler: Scheduler = {
  ...realScheduler,
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => {
      clearTimeout(timer);
    };
  },
};

/**
 * Runs `status ...`; resolves to the exit status (2 for a usage or kubeconfig mistake, 1 when
 * the cluster cannot be read). `stop` ends a --watch (the process entry never sets it: Ctrl-C);
 * `scheduler` gives the time the gates are counted from and spaces the watch's reads.
 */
export function runStatus(
  args: string[],
  io: CommandIo,
  stop?: AbortSignal,
  scheduler: Scheduler = watchScheduler,
): Promise<number> {
  return runCommand(io.out, STATUS_USAGE, async () => {
    const parsed = parse(args);
    if (parsed === 'help') {
      io.out.write(STATUS_USAGE);
      return 0;
    }
    const { kubeconfig, context } = parsed;
    const config = managementKubeConfig(kubeconfig, context, io.env);
    const request = parsed.request.contextNamespace
      ? { ...parsed.request, namespace: contextNamespace(config) }
      : parsed.request;
    return withKubeRest(config, READ_TIMEOUT_MS, async (rest) => {
      let last = '';
      for (;;) {
        const pipelines = await readPipelines(rest, request);
        const trains =
          request.json || request.name !== undefined
            ? []
            : await readTrains(rest, request.namespace);
        const text = render(pipelines, request, scheduler.now()) + renderTrains(trains);
        if (text !== last) io.out.write(request.watch && last !== '' ? `\n${text}` : text);
        last = text;
        if (!request.watch || stopped(stop)) return 0;
        await pause(request.intervalMs, stop, scheduler);
        if (stopped(stop)) return 0;
      }
    });
  });
}

function parse(
  args: string[],
): 'help' | { request: StatusRequest; kubeconfig?: string; context?: string } {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return 'help';
  if (positionals.length > 1) throw new UsageError('at most one NAMESPACE/PIPELINE');
  const [target] = positionals;
  const [ns, name] = target === undefined ? [] : target.split('/');
  if (target !== undefined && (ns === undefined || name === undefined || ns === '' || name === ''))
    throw new UsageError(`"${target}" is not NAMESPACE/PIPELINE`);
  const interval = Number(values.interval ?? '2');
  if (!(interval >= 0.2 && interval <= 3600))
    throw new UsageError('--interval must be a number of seconds from 0.2 to 3600');
  const all = values['all-namespaces'] === true;
  const namespace = ns ?? (all ? undefined : values.namespace);
  const request: StatusRequest = {
    namespace,
    contextNamespace: namespace === undefined && !all,
    name,
    json: values.json === true,
    watch: values.watch === true,
    intervalMs: interval * 1000,
  };
  return {
    request,
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
    ...(values.context === undefined ? {} : { context: values.context }),
  };
}

/** The output at `now` (ms), the clock the policy gates' times are counted from. */
function render(pipelines: readonly Pipeline[], request: StatusRequest, now: number): string {
  if (request.json) return renderJson(pipelines, now);
  const [one] = pipelines;
  if (request.name !== undefined && one !== undefined) return renderDetail(one, now);
  return renderTable(environmentRows(pipelines, now));
}

function stopped(stop: AbortSignal | undefined): boolean {
  return stop?.aborted === true;
}

function pause(ms: number, stop: AbortSignal | undefined, scheduler: Scheduler): Promise<void> {
  return new Promise((resolve) => {
    const cancel = scheduler.setTimer(ms, resolve);
    stop?.addEventListener('abort', () => {
      cancel();
      resolve();
    });
  });
}
