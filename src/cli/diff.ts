/**
 * `promotion-gateway diff NAMESPACE/NAME ENV`: what the environment's pending promotion would
 * change, as the gateway previews it (docs/api.md), coloured on a terminal, plain otherwise or
 * with NO_COLOR, or the preview itself as JSON with --json.
 */
import { parseArgs } from 'node:util';
import {
  flagOptions,
  runCommand,
  UsageError,
  valueOptions,
  type CommandIo,
  type CommandValues,
} from './args.js';
import { fetchPreview, gatewayAccess, PreviewError } from './preview-fetch.js';
import { renderPreview, wantsColour } from './preview-view.js';
import { pipelineOf } from './statement-key.js';

/** `diff --help`. */
export const DIFF_USAGE = `Usage: promotion-gateway diff NAMESPACE/NAME ENV [--gateway URL] [--token TOKEN] [--json]
  Prints the change ENV's pending promotion would make, computed by the gateway with the code
  that will make it: each target's revision move and source, the pull request's diff against
  the base commit, the webhook body or the Event, and the digest an approval may carry.
  --gateway defaults to $PROMOTION_GATEWAY_URL, --token (a read token whose pipelines claim
  covers the Pipeline) to $PROMOTION_GATEWAY_TOKEN. Colour on a terminal unless NO_COLOR is set.
  Exit 0 with a preview, 1 when the gateway has none (nothing pending, unreachable), 2 on usage.
`;

const OPTIONS = { ...valueOptions('gateway', 'token'), ...flagOptions('json') };

async function diff(
  values: CommandValues<typeof OPTIONS>,
  positionals: readonly string[],
  io: CommandIo,
): Promise<number> {
  const [pipeline, env, ...extra] = positionals;
  if (pipeline === undefined || env === undefined || extra.length > 0)
    throw new UsageError('diff takes NAMESPACE/NAME and ENV');
  const access = gatewayAccess(values, io.env);
  try {
    const preview = await fetchPreview(access, pipelineOf(pipeline), env);
    io.out.write(
      values.json === true
        ? `${JSON.stringify(preview, null, 2)}\n`
        : renderPreview(preview, wantsColour(io.out, io.env)),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof PreviewError)) throw error;
    io.out.write(`${error.message}\n`);
    return 1;
  }
}

/** The flags and the two positionals; parseArgs' own errors become UsageErrors. */
function parsed(args: string[]) {
  try {
    const options = { ...OPTIONS, help: { type: 'boolean', short: 'h' } } as const;
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs `diff ...`; resolves to the exit status (2 for a mistake, with the usage). */
export function runDiff(args: string[], io: CommandIo): Promise<number> {
  return runCommand(io.out, DIFF_USAGE, async () => {
    const { values, positionals } = parsed(args);
    if (values.help === true) {
      io.out.write(DIFF_USAGE);
      return 0;
    }
    return diff(values, positionals, io);
  });
}
