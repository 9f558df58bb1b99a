/**
 * `promotion-gateway halts ...`: an approver's stop-the-line by signed statement (a compact JWS
 * of type `promotion-halt+jwt`, docs/policy.md "Halts by signed statement"), with the same key
 * as their approvals. `sign` halts one Pipeline or every Pipeline a label selector matches,
 * `lift` lifts a halt by id; each prints the statement, or POSTs it to `/v1/halts` and prints
 * the gateway's answer.
 */
import { randomUUID } from 'node:crypto';
import { signHaltStatement, type HaltStatementClaims } from '../auth/halt-statement.js';
import { redactUrls } from '../text/redact-url.js';
import {
  command,
  commandGroup,
  repeatedOptions,
  required,
  UsageError,
  valueOptions,
  type CommandIo,
  type CommandRunner,
  type CommandValues,
} from './args.js';
import { isRfc3339, RFC3339_RULE } from '../time/kube-time.js';
import { lifetime, pipelineOf, plainText, postStatement, signingKey } from './statement-key.js';

const HALT_USAGE = `Usage: promotion-gateway halts sign --name NAME --key NAME.key.pem --reason TEXT
         (--pipeline NAMESPACE/NAME | --selector SELECTOR [--namespace NAMESPACE])
         [--env ENV] [--expires RFC3339] [--ttl SECONDS] [--send GATEWAY_URL]...
  Signs a statement halting promotions of one Pipeline, or of every Pipeline the label selector
  matches (in --namespace only, if given), in --env only if given, until it is lifted or
  --expires passes. The statement is valid for --ttl seconds (default 300).
  Without --send it prints the statement; with it, POSTs it to GATEWAY_URL/v1/halts and prints
  the answer (exit 0 on 201: every Pipeline concerned holds the halt). Give --send once per
  shard to halt across a sharded fleet: each shard halts its own Pipelines, and one that has
  none the statement names answers 404, which is then no failure (exit 0 when every shard
  answered 201 or 404 and one at least 201).
`;

const LIFT_USAGE = `Usage: promotion-gateway halts lift --name NAME --key NAME.key.pem --halt-id ID
         [--pipeline NAMESPACE/NAME] [--ttl SECONDS] [--send GATEWAY_URL]...
  Signs a statement lifting halt ID from every Pipeline holding it (from --pipeline only, if
  given); prints it, or POSTs it as above (exit 0 on 200; to several shards, on 200 or 404
  from each and 200 from one at least).
`;

/** The usage of `promotion-gateway halts`. */
export const HALTS_USAGE = `Usage: promotion-gateway halts sign|lift [options]   (--help on each)

${HALT_USAGE}
${LIFT_USAGE}`;

const HALT_OPTIONS = {
  ...valueOptions('name', 'key', 'reason', 'pipeline', 'selector', 'namespace', 'env'),
  ...valueOptions('expires', 'ttl'),
  ...repeatedOptions('send'),
};
const LIFT_OPTIONS = {
  ...valueOptions('name', 'key', 'halt-id', 'pipeline', 'ttl'),
  ...repeatedOptions('send'),
};

/** What a halt names: one Pipeline, or a selector (and the namespace narrowing it). */
function haltTarget(values: CommandValues<typeof HALT_OPTIONS>): Partial<HaltStatementClaims> {
  const { pipeline, selector, namespace } = values;
  if ((pipeline === undefined) === (selector === undefined))
    throw new UsageError('give exactly one of --pipeline and --selector');
  if (pipeline !== undefined) {
    if (namespace !== undefined) throw new UsageError('--namespace narrows a --selector only');
    return { pipeline: pipelineOf(pipeline) };
  }
  return { selector, ...(namespace === undefined ? {} : { namespace }) };
}

/** `--expires`, checked as the gateway checks it (a date the calendar has), or a UsageError. */
function expiresAt(value: string | undefined): Partial<HaltStatementClaims> {
  if (value === undefined) return {};
  if (!isRfc3339(value)) throw new UsageError(`--expires ${RFC3339_RULE}`);
  return { haltExpiresAt: value };
}

async function halt(values: CommandValues<typeof HALT_OPTIONS>, io: CommandIo): Promise<number> {
  const claims: HaltStatementClaims = {
    sub: required(values.name, '--name'),
    action: 'halt',
    reason: plainText(required(values.reason, '--reason'), '--reason'),
    ...haltTarget(values),
    ...(values.env === undefined ? {} : { environment: values.env }),
    ...expiresAt(values.expires),
    ...lifetime(values.ttl),
    jti: randomUUID(),
  };
  return signAndSend(claims, values, 201, io);
}

async function lift(values: CommandValues<typeof LIFT_OPTIONS>, io: CommandIo): Promise<number> {
  const claims: HaltStatementClaims = {
    sub: required(values.name, '--name'),
    action: 'lift',
    haltId: required(values['halt-id'], '--halt-id'),
    ...(values.pipeline === undefined ? {} : { pipeline: pipelineOf(values.pipeline) }),
    ...lifetime(values.ttl),
    jti: randomUUID(),
  };
  return signAndSend(claims, values, 200, io);
}

async function signAndSend(
  claims: HaltStatementClaims,
  values: { key?: string; send?: string[] },
  done: number,
  { out }: CommandIo,
): Promise<number> {
  const { key, alg } = await signingKey(values.key);
  const jws = await signHaltStatement(claims, key, alg);
  const gateways = values.send ?? [];
  if (gateways.length === 0) {
    out.write(`${jws}\n`);
    return 0;
  }
  const url = (gateway: string) => `${gateway.replace(/\/$/, '')}/v1/halts`;
  if (gateways.length === 1)
    return (await postStatement(url(gateways[0] ?? ''), jws, out)) === done ? 0 : 1;
  // One statement to every shard: each records it on its own Pipelines (a credential halts once
  // per Pipeline), and a shard with none of them answers 404.
  const statuses: number[] = [];
  for (const gateway of gateways) {
    out.write(`${redactUrls(gateway)}: `);
    statuses.push(await postStatement(url(gateway), jws, out));
  }
  const settled = statuses.every((status) => status === done || status === 404);
  return settled && statuses.includes(done) ? 0 : 1;
}

const SUBCOMMANDS = new Map<string, CommandRunner>([
  ['sign', command({ usage: HALT_USAGE, options: HALT_OPTIONS, run: halt })],
  ['lift', command({ usage: LIFT_USAGE, options: LIFT_OPTIONS, run: lift })],
]);

/** Runs `halts <command> ...`; resolves to the exit status. */
export const runHalts = commandGroup('halts', HALTS_USAGE, SUBCOMMANDS);
