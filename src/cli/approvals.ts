/**
 * `promotion-gateway approvals ...`: the approver's side of signed approvals. `keygen` makes a
 * key pair (the private key readable by its owner only), `sign` makes a statement for one
 * pipeline, environment and revision and prints or sends it, `verify` checks every statement
 * stored in a Pipeline's status against the approvers' public keys, trusting nothing else.
 */
import { randomUUID } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportPKCS8, exportSPKI, generateKeyPair, importPKCS8, type CryptoKey } from 'jose';
import { signStatement, STATEMENT_ALGORITHMS } from '../auth/statement.js';
import {
  command,
  flagOptions,
  required,
  UsageError,
  valueOptions,
  type CommandIo,
  type CommandRunner,
  type CommandValues,
} from './args.js';
import { verifyCommand, VERIFY_USAGE } from './verify-approvals.js';

type Algorithm = (typeof STATEMENT_ALGORITHMS)[number];

const KEYGEN_USAGE = `Usage: promotion-gateway approvals keygen --name NAME [--out DIR] [--alg EdDSA|ES256]
  Writes NAME.key.pem (the private key, mode 0600: keep it yourself) and NAME.pub.pem (the
  public key: give it to whoever runs the gateway, for approvals.approvers[].publicKeys).
`;

const SIGN_USAGE = `Usage: promotion-gateway approvals sign --name NAME --key NAME.key.pem
         --pipeline NAMESPACE/NAME --env ENV --revision REV
         [--reject] [--comment TEXT] [--ttl SECONDS] [--send GATEWAY_URL]
  Signs a statement approving (or, with --reject, rejecting) REV for ENV of the pipeline,
  valid for --ttl seconds (default 300; the gateway refuses more than its configured maximum).
  Without --send it prints the statement; with it, POSTs it to the gateway and prints the answer.
`;

/** The usage of `promotion-gateway approvals`. */
export const APPROVALS_USAGE = `Usage: promotion-gateway approvals keygen|sign|verify [options]   (--help on each)

${KEYGEN_USAGE}
${SIGN_USAGE}
${VERIFY_USAGE}`;

/** Runs `approvals <command> ...`; resolves to the exit status. */
export function runApprovals(
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  out: NodeJS.WritableStream,
): Promise<number> {
  const [name, ...rest] = args;
  const subcommand = name === undefined ? undefined : SUBCOMMANDS.get(name);
  if (subcommand !== undefined) return subcommand(rest, { env, out });
  if (name === undefined || name === '--help' || name === '-h') {
    out.write(APPROVALS_USAGE);
    return Promise.resolve(name === undefined ? 2 : 0);
  }
  out.write(`unknown approvals command: ${name}\n\n${APPROVALS_USAGE}`);
  return Promise.resolve(2);
}

function algorithm(value: string | undefined): Algorithm {
  const alg = value ?? 'EdDSA';
  if (!(STATEMENT_ALGORITHMS as readonly string[]).includes(alg))
    throw new UsageError(`--alg must be one of ${STATEMENT_ALGORITHMS.join(', ')}`);
  return alg as Algorithm;
}

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

/** The private key in a PKCS#8 PEM file, and the algorithm it signs with. */
async function signingKey(pem: string): Promise<{ key: CryptoKey; alg: Algorithm }> {
  for (const alg of STATEMENT_ALGORITHMS) {
    try {
      return { key: await importPKCS8(pem, alg), alg };
    } catch {
      continue;
    }
  }
  throw new UsageError('--key must be an Ed25519 or P-256 private key in PKCS#8 PEM');
}

function pipelineOf(value: string | undefined): string {
  const pipeline = required(value, '--pipeline');
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(pipeline))
    throw new UsageError('--pipeline must be NAMESPACE/NAME');
  return pipeline;
}

const SIGN_OPTIONS = {
  ...valueOptions('name', 'key', 'pipeline', 'env', 'revision', 'comment', 'ttl', 'send'),
  ...flagOptions('reject'),
};

async function sign(
  values: CommandValues<typeof SIGN_OPTIONS>,
  { out }: CommandIo,
): Promise<number> {
  const { key, alg } = await signingKey(await readFile(required(values.key, '--key'), 'utf8'));
  const ttl = Number(values.ttl ?? '300');
  if (!Number.isInteger(ttl) || ttl < 1)
    throw new UsageError('--ttl must be a whole number of seconds');
  const now = Math.floor(Date.now() / 1000);
  const jws = await signStatement(
    {
      sub: required(values.name, '--name'),
      pipeline: pipelineOf(values.pipeline),
      environment: required(values.env, '--env'),
      revision: required(values.revision, '--revision'),
      decision: values.reject === true ? 'reject' : 'approve',
      ...(values.comment === undefined ? {} : { comment: values.comment }),
      iat: now,
      exp: now + ttl,
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

async function send(
  gateway: string,
  pipeline: string,
  env: string,
  jws: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const url = `${gateway.replace(/\/$/, '')}/v1/pipelines/${pipeline}/environments/${encodeURIComponent(env)}/approvals`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/jose' },
    body: jws,
  });
  out.write(`${response.status} ${await response.text()}\n`);
  return response.status === 202 ? 0 : 1;
}

const SUBCOMMANDS = new Map<string, CommandRunner>([
  ['keygen', command({ usage: KEYGEN_USAGE, options: KEYGEN_OPTIONS, run: keygen })],
  ['sign', command({ usage: SIGN_USAGE, options: SIGN_OPTIONS, run: sign })],
  ['verify', verifyCommand],
]);
