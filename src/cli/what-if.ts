/**
 * `promotion-gateway what-if --policy FILE`: what the fleet's environments would decide under a
 * proposed policy, beside what they decide under the current one, with nothing written. Like
 * `status`, it reads the Pipelines through a kubeconfig and decides on their stored statuses with
 * the gateway's own evaluator (cli/status-policy.ts); `POST /v1/what-if` asks a running gateway,
 * whose reads, check results and configured windows and floors count too.
 */
import { parseArgs } from 'node:util';
import { withKubeRest } from '../kube/rest.js';
import { isRfc3339, rfc3339 } from '../time/kube-time.js';
import { whatIf } from '../evaluation/what-if.js';
import { runCommand, UsageError, type CommandIo } from './args.js';
import { storedEvaluator, storedTargets } from './status-policy.js';
import {
  contextNamespace,
  managementKubeConfig,
  READ_TIMEOUT_MS,
  readPipelines,
} from './stored-pipelines.js';
import { PolicyFileError, readPolicyFile } from './what-if-file.js';
import { renderWhatIf, renderWhatIfJson } from './what-if-view.js';

/** `what-if --help`. */
export const WHAT_IF_USAGE = `Usage: promotion-gateway what-if --policy FILE [NAMESPACE/PIPELINE] [-n NAMESPACE | -A]
                                 [--at TIME] [--all] [--json] [--kubeconfig PATH] [--context NAME]

Decides every environment of the Pipelines (the kubeconfig context's namespace, -n NAMESPACE,
-A for all, or NAMESPACE/PIPELINE) on their stored statuses twice: under the policy they have and
under the policy of FILE (YAML or JSON: fleet windows and per-environment gate fields; see
docs/policy.md, What-if), and prints the environments whose decision changes (--all: every
environment) with the proposed decision's reason. Nothing is written.
--at TIME (RFC 3339) decides at that instant instead of now (windows, soak).
--json prints the answer as POST /v1/what-if gives it.
Exit status: 0 answered, 2 a usage mistake or a policy file that cannot be used (each problem
named), 1 the Pipelines cannot be read.
`;

const OPTIONS = {
  policy: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  at: { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/**
 * Runs `what-if ...`; resolves to the exit status. `now` gives the instant decided at without
 * --at (the wall clock by default).
 */
export function runWhatIf(
  args: string[],
  io: CommandIo,
  now: () => number = Date.now,
): Promise<number> {
  return runCommand(io.out, WHAT_IF_USAGE, async () => {
    const { values, positionals } = parse(args);
    if (values.help === true) {
      io.out.write(WHAT_IF_USAGE);
      return 0;
    }
    const file = values.policy;
    if (file === undefined || file === '') throw new UsageError('--policy FILE is required');
    const at = instantOf(values.at, now);
    let policy;
    try {
      policy = readPolicyFile(file);
    } catch (error) {
      if (!(error instanceof PolicyFileError)) throw error;
      io.out.write(error.problems.map((p) => `policy ${file}: ${p}\n`).join(''));
      return 2;
    }
    const config = managementKubeConfig(values.kubeconfig, values.context, io.env);
    const selection = selectionOf(values, positionals, () => contextNamespace(config));
    return withKubeRest(config, READ_TIMEOUT_MS, async (rest) => {
      const pipelines = await readPipelines(rest, selection);
      const subjects = pipelines.map((pipeline) => ({
        pipeline,
        targets: storedTargets(pipeline),
      }));
      const answer = whatIf(subjects, storedEvaluator(at), policy, at);
      const all = values.all === true;
      const when = rfc3339(at);
      io.out.write(
        values.json === true
          ? renderWhatIfJson(answer, all, when)
          : renderWhatIf(answer, all, when),
      );
      return 0;
    });
  });
}

function parse(args: string[]): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function instantOf(at: string | undefined, now: () => number): number {
  if (at === undefined) return now();
  if (!isRfc3339(at))
    throw new UsageError(`--at "${at}" is not an RFC 3339 time (2026-12-24T18:00:00Z)`);
  return Date.parse(at);
}

function selectionOf(values: Values, positionals: string[], fromContext: () => string) {
  if (positionals.length > 1) throw new UsageError('at most one NAMESPACE/PIPELINE');
  const [target] = positionals;
  if (target !== undefined) {
    const [namespace, name, ...rest] = target.split('/');
    if (
      namespace === undefined ||
      name === undefined ||
      namespace === '' ||
      name === '' ||
      rest.length > 0
    )
      throw new UsageError(`"${target}" is not NAMESPACE/PIPELINE`);
    return { namespace, name };
  }
  if (values['all-namespaces'] === true) return { namespace: undefined, name: undefined };
  return { namespace: values.namespace ?? fromContext(), name: undefined };
}
