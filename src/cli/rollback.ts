/**
 * `promotion-gateway rollback NAMESPACE/NAME ENV [--to REV] --reason TEXT --name NAME --key KEY`:
 * an approver's signed rollback statement (`promotion-rollback+jwt`, docs/api.md "Rollbacks"),
 * printed, or sent to the gateway with --send, as `approvals sign` does for an approval.
 */
import { randomUUID } from 'node:crypto';
import { signRollbackStatement } from '../auth/rollback-statement.js';
import {
  command,
  required,
  UsageError,
  valueOptions,
  type CommandIo,
  type CommandRunner,
  type CommandValues,
} from './args.js';
import { lifetime, pipelineOf, plainText, postStatement, signingKey } from './statement-key.js';

/** The usage of `promotion-gateway rollback`. */
export const ROLLBACK_USAGE = `Usage: promotion-gateway rollback NAMESPACE/NAME ENV --reason TEXT
         --name NAME --key NAME.key.pem [--to REV] [--ttl SECONDS] [--send GATEWAY_URL]
  Signs a statement asking to roll ENV of the pipeline back to REV, or without --to to the
  previous revision it ran healthy, for the reason given (kept with the rollback), valid for
  --ttl seconds (default 300). The environment's rollback policy says who may and how many
  must ask (docs/policy.md, "Rollback"). Without --send it prints the statement; with it, POSTs
  it to the gateway and prints the answer. A hold is lifted with the API (docs/api.md).
`;

const OPTIONS = valueOptions('to', 'reason', 'name', 'key', 'ttl', 'send');

/** Runs `rollback NAMESPACE/NAME ENV ...`; resolves to the exit status. */
export const runRollback = (args: string[], io: CommandIo): Promise<number> => {
  const [pipeline, env, ...rest] = args;
  const positional = (value: string | undefined) => value !== undefined && !value.startsWith('-');
  const run: CommandRunner = command({
    usage: ROLLBACK_USAGE,
    options: OPTIONS,
    run: (values, commandIo) => {
      if (!positional(pipeline) || !positional(env))
        throw new UsageError('rollback needs NAMESPACE/NAME and ENV first');
      return sign(pipeline ?? '', env ?? '', values, commandIo);
    },
  });
  return run(positional(pipeline) && positional(env) ? rest : args, io);
};

async function sign(
  pipelineText: string,
  environment: string,
  values: CommandValues<typeof OPTIONS>,
  { out }: CommandIo,
): Promise<number> {
  const pipeline = pipelineOf(pipelineText);
  const { key, alg } = await signingKey(values.key);
  const jws = await signRollbackStatement(
    {
      sub: required(values.name, '--name'),
      pipeline,
      environment,
      reason: plainText(required(values.reason, '--reason'), '--reason'),
      ...(values.to === undefined ? {} : { revision: values.to }),
      ...lifetime(values.ttl),
      jti: randomUUID(),
    },
    key,
    alg,
  );
  if (values.send === undefined) {
    out.write(`${jws}\n`);
    return 0;
  }
  const base = values.send.replace(/\/$/, '');
  const url = `${base}/v1/pipelines/${pipeline}/environments/${encodeURIComponent(environment)}/rollbacks`;
  return (await postStatement(url, jws, out)) === 202 ? 0 : 1;
}
