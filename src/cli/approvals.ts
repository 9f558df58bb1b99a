/**
 * `promotion-gateway approvals ...`: the approver's side of signed approvals. `keygen` makes a
 * key pair (the private key readable by its owner only), `sign` makes a statement for one
 * pipeline, environment and revision and prints or sends it, `verify` checks every statement
 * stored in a Pipeline's status against the approvers' public keys, trusting nothing else.
 */
import { randomUUID } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import { signStatement } from '../auth/statement.js';
import type { AuthorizationDecision } from '../auth/identity.js';
import {
  command,
  commandGroup,
  flagOptions,
  required,
  UsageError,
  valueOptions,
  type CommandIo,
  type CommandRunner,
  type CommandValues,
} from './args.js';
import {
  algorithm,
  lifetime,
  pipelineOf,
  plainText,
  postStatement,
  signingKey,
} from './statement-key.js';
import { verifyCommand, VERIFY_USAGE } from './verify-approvals.js';
import { signTrainApproval } from './train-approval.js';
import { fetchPreview, gatewayAccess, PreviewError } from './preview-fetch.js';
import type { Preview } from '../preview/previewer.js';
import { neutralize } from '../text/text.js';

const KEYGEN_USAGE = `Usage: promotion-gateway approvals keygen --name NAME [--out DIR] [--alg EdDSA|ES256]
  Writes NAME.key.pem (the private key, mode 0600: keep it yourself) and NAME.pub.pem (the
  public key: give it to whoever runs the gateway, for approvals.approvers[].publicKeys).
`;

const SIGN_USAGE = `Usage: promotion-gateway approvals sign --name NAME --key NAME.key.pem
         --pipeline NAMESPACE/NAME --env ENV --revision REV
         [--reject | --break-glass] [--comment TEXT] [--ttl SECONDS] [--send GATEWAY_URL]
         [--gateway URL] [--token TOKEN] [--no-preview]
  Signs a statement approving (or, with --reject, rejecting) REV for ENV of the pipeline,
  valid for --ttl seconds (default 300; the gateway refuses more than its configured maximum).
  --break-glass authorizes REV past a halt or window holding it (docs/policy.md); --comment
  is then required: the reason, kept with the record.
  An approval carries the digest of the change it approves (previewDigest): the preview is
  fetched from --gateway (default --send, else $PROMOTION_GATEWAY_URL) with --token (default
  $PROMOTION_GATEWAY_TOKEN), and the approval counts only while the change keeps that digest.
  --no-preview signs without it (the approval then covers whatever change REV makes).
  Without --send it prints the statement; with it, POSTs it to the gateway and prints the
  preview's summary and digest, then the answer.

       promotion-gateway approvals sign --name NAME --key NAME.key.pem
         --train NAMESPACE/NAME --env ENV [--members MEMBER=REV,...] [--digest sha256:...]
         [--reject] [--comment TEXT] [--ttl SECONDS] [--send GATEWAY_URL]
         [--gateway URL] [--token TOKEN]
  Signs one approval (or rejection) of a release train's combination for ENV: the member
  revisions of the train's release there. Without --members they are read from --gateway
  (default --send, else $PROMOTION_GATEWAY_URL) with --token (default $PROMOTION_GATEWAY_TOKEN):
  the release waiting in ENV. The gateway records it on every member whose ENV is gated, only
  while that combination is the release waiting there. --digest, when given, must be the
  combination's digest (pin what you looked at).
`;

/** The usage of `promotion-gateway approvals`. */
export const APPROVALS_USAGE = `Usage: promotion-gateway approvals keygen|sign|verify [options]   (--help on each)

${KEYGEN_USAGE}
${SIGN_USAGE}
${VERIFY_USAGE}`;

const KEYGEN_OPTIONS = valueOptions('name', 'out', 'alg');

async function keygen(
  values: CommandValues<typeof KEYGEN_OPTIONS>,
  { out }: CommandIo,
): Promise<number> {
  const name = required(values.name, '--name');
  const alg = algorithm(values.alg);
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const dir = values.out ?? '.';
  const keyFile = join(dir, `${name}.key.pem`);
  // Written with mode 0600 from the start, then forced, so it is never readable by others.
  await writeFile(keyFile, await exportPKCS8(privateKey), { mode: 0o600, flag: 'wx' });
  await chmod(keyFile, 0o600);
  const pubFile = join(dir, `${name}.pub.pem`);
  await writeFile(pubFile, await exportSPKI(publicKey), { flag: 'wx' });
  out.write(
    `wrote ${keyFile} (private, 0600) and ${pubFile}\n` +
      `gateway configuration:\n  approvals:\n    approvers:\n      - name: ${name}\n` +
      `        publicKeys: [{ file: ${pubFile} }]\n`,
  );
  return 0;
}

const SIGN_OPTIONS = {
  ...valueOptions('name', 'key', 'pipeline', 'env', 'revision', 'comment', 'ttl', 'send'),
  ...valueOptions('gateway', 'token', 'train', 'members', 'digest'),
  ...flagOptions('reject', 'break-glass', 'no-preview'),
};

async function sign(
  values: CommandValues<typeof SIGN_OPTIONS>,
  { out, env }: CommandIo,
): Promise<number> {
  if (values.train !== undefined) return signTrain(values, { out, env });
  const { key, alg } = await signingKey(values.key);
  const claims = {
    sub: required(values.name, '--name'),
    pipeline: pipelineOf(values.pipeline),
    environment: required(values.env, '--env'),
    revision: required(values.revision, '--revision'),
    decision: decisionOf(values),
    ...(values.comment === undefined ? {} : { comment: plainText(values.comment, '--comment') }),
  };
  // Fetched once the statement's own fields are known good: a mistake costs no request.
  const preview = await previewFor(values, env);
  if (preview !== undefined && values.send !== undefined)
    out.write(`previewed: ${neutralize(preview.summary)}\ndigest ${preview.digest}\n`);
  const jws = await signStatement(
    {
      ...claims,
      ...(preview === undefined ? {} : { previewDigest: preview.digest }),
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
  return send(values.send, pipelineOf(values.pipeline), required(values.env, '--env'), jws, out);
}

/** The train form of `sign`: one approval of a combination (train-approval.ts). */
async function signTrain(
  values: CommandValues<typeof SIGN_OPTIONS>,
  io: CommandIo,
): Promise<number> {
  for (const flag of ['pipeline', 'revision', 'break-glass', 'no-preview'] as const)
    if (values[flag] !== undefined) throw new UsageError(`--train excludes --${flag}`);
  return signTrainApproval(values, await signingKey(values.key), io);
}

async function send(
  gateway: string,
  pipeline: string,
  env: string,
  jws: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const url = `${gateway.replace(/\/$/, '')}/v1/pipelines/${pipeline}/environments/${encodeURIComponent(env)}/approvals`;
  return (await postStatement(url, jws, out)) === 202 ? 0 : 1;
}

/**
 * The preview an approval is signed over, fetched from the gateway; undefined for a rejection,
 * a break-glass or with --no-preview. Throws when the gateway previews another revision or
 * cannot know the change now: an approval of a change nobody saw is not made by default.
 */
async function previewFor(
  values: CommandValues<typeof SIGN_OPTIONS>,
  env: CommandIo['env'],
): Promise<Preview | undefined> {
  if (values['no-preview'] === true || decisionOf(values) !== 'approve') return undefined;
  const access = gatewayAccess(values, env, values.send);
  const environment = required(values.env, '--env');
  const preview = await fetchPreview(access, pipelineOf(values.pipeline), environment);
  const revision = required(values.revision, '--revision');
  if (preview.revision !== revision)
    throw new PreviewError(
      `${environment}'s pending promotion is of ${neutralize(preview.revision)}, not ${revision}`,
    );
  if (preview.change.kind === 'unavailable')
    throw new PreviewError(
      `the change cannot be known now (${preview.change.reason}); sign with --no-preview to approve without it`,
    );
  return preview;
}

/** The statement's decision; a break-glass needs its reason (--comment). */
function decisionOf(values: CommandValues<typeof SIGN_OPTIONS>): AuthorizationDecision {
  if (values.reject === true && values['break-glass'] === true)
    throw new UsageError('--reject and --break-glass exclude each other');
  if (values['break-glass'] !== true) return values.reject === true ? 'reject' : 'approve';
  if (values.comment === undefined || values.comment.trim() === '')
    throw new UsageError('--break-glass needs --comment: the reason, kept with the record');
  return 'break-glass';
}

const SUBCOMMANDS = new Map<string, CommandRunner>([
  ['keygen', command({ usage: KEYGEN_USAGE, options: KEYGEN_OPTIONS, run: keygen })],
  ['sign', command({ usage: SIGN_USAGE, options: SIGN_OPTIONS, run: sign })],
  ['verify', verifyCommand],
]);

/** Runs `approvals <command> ...`; resolves to the exit status. */
export const runApprovals = commandGroup('approvals', APPROVALS_USAGE, SUBCOMMANDS);
