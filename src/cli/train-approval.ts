/**
 * `promotion-gateway approvals sign --train NAMESPACE/NAME ...`: a signed approval (or rejection)
 * of one combination of a release train's member revisions for one environment
 * (docs/approvals.md, "Approving a release train"). The combination is named by its members'
 * revisions (`--members api=2.4.0,web=5.1.0`, as the train's release shows them), or, without
 * `--members`, read from the gateway: the release waiting in the environment
 * (`GET /v1/trains/{namespace}/{name}`). Its digest is computed from the members; `--digest`, when
 * given, must be that digest, so a combination copied wrong, or one that moved since it was
 * looked at, is caught before anything is signed.
 */
import { randomUUID } from 'node:crypto';
import type { CryptoKey } from 'jose';
import { membersDigest, signTrainStatement } from '../auth/train-statement.js';
import type { TrainAnswer } from '../ingress/train-routes.js';
import { neutralize } from '../text/text.js';
import { required, UsageError, type CommandIo } from './args.js';
import { gatewayAccess, PreviewError, readGateway } from './preview-fetch.js';
import { lifetime, plainText, postStatement, type Algorithm } from './statement-key.js';

/** What `sign` was given for a train approval. */
export interface TrainSignValues {
  name?: string | undefined;
  train?: string | undefined;
  env?: string | undefined;
  members?: string | undefined;
  digest?: string | undefined;
  gateway?: string | undefined;
  token?: string | undefined;
  comment?: string | undefined;
  ttl?: string | undefined;
  send?: string | undefined;
  reject?: boolean | undefined;
}

/** `--train`'s NAMESPACE/NAME, or a UsageError. */
export function trainOf(value: string | undefined): string {
  const train = required(value, '--train');
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(train))
    throw new UsageError('--train must be NAMESPACE/NAME');
  return train;
}

/** `--members`' `member=revision,...` as a map, or a UsageError naming what is wrong. */
export function membersOf(value: string | undefined): Record<string, string> {
  const text = required(value, '--members');
  const members: Record<string, string> = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    const member = part.slice(0, at).trim();
    const revision = part.slice(at + 1).trim();
    if (at < 1 || member === '' || revision === '')
      throw new UsageError('--members must be MEMBER=REVISION,... (as the train release shows)');
    if (Object.hasOwn(members, member)) throw new UsageError(`--members names ${member} twice`);
    members[member] = revision;
  }
  return members;
}

/**
 * Signs the train approval `values` describe with `key`; prints the statement, or (with --send)
 * the combination's digest, then POSTs it and prints the answer. Resolves to the exit status.
 */
export async function signTrainApproval(
  values: TrainSignValues,
  signer: { key: CryptoKey; alg: Algorithm },
  { out, env }: CommandIo,
): Promise<number> {
  const train = trainOf(values.train);
  const environment = required(values.env, '--env');
  const members =
    values.members === undefined
      ? await waitingCombination(values, env, train, environment)
      : membersOf(values.members);
  const digest = membersDigest(members);
  if (values.digest !== undefined && values.digest !== digest)
    throw new UsageError(`--digest ${values.digest} is not that of the combination (${digest})`);
  if (values.members === undefined && values.send !== undefined)
    out.write(`members ${describe(members)}\n`);
  const jws = await signTrainStatement(
    {
      sub: required(values.name, '--name'),
      ...{ train, environment, members, combinationDigest: digest },
      decision: values.reject === true ? 'reject' : 'approve',
      ...(values.comment === undefined ? {} : { comment: plainText(values.comment, '--comment') }),
      ...lifetime(values.ttl),
      jti: randomUUID(),
    },
    signer.key,
    signer.alg,
  );
  if (values.send === undefined) {
    out.write(`${jws}\n`);
    return 0;
  }
  out.write(`combination ${digest}\n`);
  const url = `${values.send.replace(/\/$/, '')}/v1/trains/${train}/environments/${encodeURIComponent(environment)}/approvals`;
  return (await postStatement(url, jws, out)) === 202 ? 0 : 1;
}

/**
 * The members of the release of `train` waiting in `environment`, read from the gateway
 * (`--gateway`, else $PROMOTION_GATEWAY_URL, else `--send`; `--token`); a PreviewError when none
 * waits there.
 */
async function waitingCombination(
  values: TrainSignValues,
  env: CommandIo['env'],
  train: string,
  environment: string,
): Promise<Record<string, string>> {
  const access = gatewayAccess(values, env, values.send);
  const answer = (await readGateway(access, `/v1/trains/${train}`)) as Partial<TrainAnswer>;
  const release = answer.environments?.find((e) => e.name === environment)?.release;
  if (release === undefined)
    throw new PreviewError(`train ${train} has no release into ${environment}`);
  if (release.state !== 'Waiting')
    throw new PreviewError(
      `train ${train}'s release into ${environment} is ${neutralize(release.state)}, not waiting for approval`,
    );
  if (membersDigest(release.members) !== release.digest)
    throw new PreviewError(`the gateway's combination does not match its digest ${release.digest}`);
  return { ...release.members };
}

function describe(members: Record<string, string>): string {
  return Object.entries(members)
    .map(([member, revision]) => `${neutralize(member)}=${neutralize(revision)}`)
    .join(',');
}
