/**
 * `promotion-gateway approvals verify`: the audit trail checked without trusting the gateway.
 * Every stored statement must verify against its approver's public key as of when it was
 * recorded, and say exactly what its record says (pipeline, environment, revision, decision,
 * id, approver; for an approval of a release train's combination, the train's namespace, the
 * combination's digest and this member's revision in it). One altered byte anywhere fails it.
 */
import { readFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { PIPELINE } from '../kube/resources.js';
import { resourcePath, withKubeRest } from '../kube/rest.js';
import { parse } from 'yaml';
import {
  checkSigned,
  statementSigner,
  verifyStatement,
  type StatementClaims,
} from '../auth/statement.js';
import { TRAIN_STATEMENT_FORM, type TrainStatementClaims } from '../auth/train-statement.js';
import { loadConfig } from '../config/load.js';
import type { AuthorizationConfig } from '../config/gateway-config.js';
import { parseTimestamp } from '../time/kube-time.js';
import type { AuthorizationRecord, PipelineStatus } from '../pipeline/pipeline-resource.js';
import {
  command,
  required,
  UsageError,
  valueOptions,
  type CommandIo,
  type CommandValues,
} from './args.js';

/** The usage of `approvals verify`. */
export const VERIFY_USAGE = `Usage: promotion-gateway approvals verify --config GATEWAY_CONFIG
         (--from PIPELINE.yaml | --pipeline NAMESPACE/NAME [--kubeconfig PATH] [--context NAME])
  Checks every signed approval stored in the Pipeline's status against the public keys of the
  approvers in the gateway configuration. Exits 0 when every statement verifies, 1 otherwise.
`;

/** The verdict on one stored record. */
export interface RecordVerdict {
  environment: string;
  principal: string;
  revision: string;
  /** ok: the statement verifies and matches; unsigned: no statement (SSO, CI, legacy). */
  result: 'ok' | 'unsigned' | 'failed';
  reason?: string;
}

/** Checks every record of `status` of Pipeline `pipeline` (`namespace/name`). */
export async function verifyRecords(
  pipeline: string,
  status: PipelineStatus | undefined,
  config: AuthorizationConfig,
): Promise<RecordVerdict[]> {
  const verdicts: RecordVerdict[] = [];
  for (const [environment, env] of Object.entries(status?.environments ?? {})) {
    for (const record of env.approvals ?? []) {
      const base = { environment, principal: record.principal, revision: record.revision };
      const reason = await problemOf(pipeline, environment, record, config);
      const result =
        record.statement === undefined ? 'unsigned' : reason === undefined ? 'ok' : 'failed';
      verdicts.push({ ...base, result, ...(reason === undefined ? {} : { reason }) });
    }
  }
  return verdicts;
}

async function problemOf(
  pipeline: string,
  environment: string,
  record: AuthorizationRecord,
  config: AuthorizationConfig,
): Promise<string | undefined> {
  if (record.statement === undefined) return `no statement (${record.kind})`;
  const approver = config.approvers.find((a) => a.name === statementSigner(record.statement ?? ''));
  if (approver === undefined) return 'signed by no configured approver';
  const recordedAt = parseTimestamp(record.time);
  if (recordedAt === undefined) return 'the record has no readable time';
  const policy = {
    maxLifetimeSeconds: config.maxStatementLifetimeSeconds,
    clockToleranceSeconds: config.clockToleranceSeconds,
  };
  if (record.combinationDigest !== undefined) {
    const checked = await checkSigned(
      record.statement,
      approver,
      policy,
      recordedAt,
      TRAIN_STATEMENT_FORM,
    );
    if (!checked.ok) return 'the signature or the times do not verify';
    return trainMismatch(checked.value, pipeline, environment, record);
  }
  const claims = await verifyStatement(record.statement, approver, policy, recordedAt);
  if (claims === undefined) return 'the signature or the times do not verify';
  return mismatch(claims, pipeline, environment, record);
}

/** What a train statement stored on member `pipeline` says that its record does not. */
function trainMismatch(
  claims: TrainStatementClaims,
  pipeline: string,
  environment: string,
  record: AuthorizationRecord,
): string | undefined {
  const [namespace, member = ''] = pipeline.split('/');
  const expected: [string, unknown, unknown][] = [
    ['train namespace', claims.train.split('/')[0], namespace],
    ['environment', claims.environment, environment],
    ['approver', claims.sub, record.principal],
    ['revision', claims.members[member], record.revision],
    ['combination', claims.combinationDigest, record.combinationDigest],
    ['decision', claims.decision, record.decision],
    ['id', claims.jti, record.jti],
  ];
  const wrong = expected.find(([, signed, stored]) => signed !== stored);
  return wrong === undefined ? undefined : `the statement's ${wrong[0]} differs from the record`;
}

function mismatch(
  claims: StatementClaims,
  pipeline: string,
  environment: string,
  record: AuthorizationRecord,
): string | undefined {
  const expected: [string, unknown, unknown][] = [
    ['pipeline', claims.pipeline, pipeline],
    ['environment', claims.environment, environment],
    ['approver', claims.sub, record.principal],
    ['revision', claims.revision, record.revision],
    ['decision', claims.decision, record.decision],
    ['id', claims.jti, record.jti],
  ];
  const wrong = expected.find(([, signed, stored]) => signed !== stored);
  return wrong === undefined ? undefined : `the statement's ${wrong[0]} differs from the record`;
}

async function readStatus(values: {
  from?: string | undefined;
  pipeline?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
}): Promise<{ pipeline: string; status: PipelineStatus | undefined }> {
  if (values.from !== undefined) {
    const object = parse(await readFile(values.from, 'utf8')) as {
      metadata?: { namespace?: string; name?: string };
      status?: PipelineStatus;
    };
    return {
      pipeline: `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`,
      status: object.status,
    };
  }
  const [namespace, name] = required(values.pipeline, '--pipeline or --from').split('/');
  if (namespace === undefined || name === undefined)
    throw new UsageError('--pipeline must be NAMESPACE/NAME');
  const kc = new KubeConfig();
  if (values.kubeconfig === undefined) kc.loadFromDefault();
  else kc.loadFromFile(values.kubeconfig);
  if (values.context !== undefined) kc.setCurrentContext(values.context);
  const object = (await withKubeRest(kc, 30_000, (rest) =>
    rest.get(resourcePath(PIPELINE, namespace, name)),
  )) as { status?: PipelineStatus };
  return { pipeline: `${namespace}/${name}`, status: object.status };
}

const VERIFY_OPTIONS = valueOptions('config', 'from', 'pipeline', 'kubeconfig', 'context');

async function verify(
  values: CommandValues<typeof VERIFY_OPTIONS>,
  { env, out }: CommandIo,
): Promise<number> {
  const config = loadConfig({ file: required(values.config, '--config'), env }).authorizations;
  const { pipeline, status } = await readStatus(values);
  const verdicts = await verifyRecords(pipeline, status, config);
  for (const v of verdicts) {
    const why = v.reason === undefined ? '' : `: ${v.reason}`;
    out.write(`${v.result.toUpperCase()}  ${v.environment}  ${v.revision}  ${v.principal}${why}\n`);
  }
  const failed = verdicts.filter((v) => v.result === 'failed').length;
  const signed = verdicts.filter((v) => v.result === 'ok').length;
  out.write(
    `${signed} signed statement(s) verified, ${failed} failed, ${verdicts.length - signed - failed} unsigned\n`,
  );
  return failed === 0 ? 0 : 1;
}

/** `approvals verify`: exit 0 when every signed statement verifies, 1 otherwise. */
export const verifyCommand = command({ usage: VERIFY_USAGE, options: VERIFY_OPTIONS, run: verify });
