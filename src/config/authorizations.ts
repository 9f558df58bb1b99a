/**
 * The `approvals` and `ci` sections: approvers' keys resolved and checked (EdDSA or ES256
 * public keys only), and the cross-field rules the schema cannot state (unique names, CI
 * policies naming a configured issuer, no SSO identity claimed by two approvers).
 */
import type { KeyObject } from 'node:crypto';
import type { CheckedInput } from './input.js';
import { approvalAlgorithm, importPublicKey } from './keys.js';
import { problem } from './schema.js';
import { resolveSecret, type SecretContext } from './secret-sources.js';
import type { ApproverConfig, AuthorizationConfig } from './gateway-config.js';

/** What a signed approval may be signed with: Ed25519, or ECDSA on P-256. */
function approvalKeyProblem(text: string): string | undefined {
  let key: KeyObject;
  try {
    key = importPublicKey(text);
  } catch {
    // importPublicKey never echoes the key material; neither does this message.
    return 'must be a PEM public key (SPKI) or a public JWK in JSON';
  }
  return approvalAlgorithm(key) === undefined
    ? 'must be an Ed25519 (EdDSA) or P-256 (ES256) public key'
    : undefined;
}

function buildApprover(
  approver: CheckedInput['approvals']['approvers'][number],
  index: number,
  context: SecretContext,
  problems: string[],
): ApproverConfig {
  const publicKeys: string[] = [];
  (approver.publicKeys ?? []).forEach((source, keyIndex) => {
    const pointer = `/approvals/approvers/${index}/publicKeys/${keyIndex}`;
    const bytes = resolveSecret(source, pointer, context, problems);
    if (bytes === undefined) return;
    const text = bytes.toString('utf8');
    const keyProblem = approvalKeyProblem(text);
    if (keyProblem === undefined) publicKeys.push(text);
    else problems.push(problem(pointer, keyProblem));
  });
  return {
    name: approver.name,
    publicKeys,
    oidcSubjects: [...(approver.oidcSubjects ?? [])],
    groups: [...approver.groups],
  };
}

/** Problems for values that must be unique across entries, naming the later duplicate. */
function duplicates(values: readonly string[], pointer: (index: number) => string): string[] {
  const seen = new Map<string, number>();
  const out: string[] = [];
  values.forEach((value, index) => {
    const first = seen.get(value);
    if (first === undefined) seen.set(value, index);
    else out.push(problem(pointer(index), `duplicates ${pointer(first)} ("${value}")`));
  });
  return out;
}

/** The cross-field rules of the two sections. */
function checkAuthorizations(input: CheckedInput): string[] {
  const { approvers } = input.approvals;
  const { issuers, policies } = input.ci;
  const issuerNames = new Set(issuers.map((i) => i.name));
  const subjects = approvers.flatMap((a, i) =>
    (a.oidcSubjects ?? []).map((s, j) => ({
      s,
      at: `/approvals/approvers/${i}/oidcSubjects/${j}`,
    })),
  );
  return [
    ...duplicates(
      approvers.map((a) => a.name),
      (i) => `/approvals/approvers/${i}/name`,
    ),
    ...duplicates(
      subjects.map((x) => x.s),
      (i) => subjects[i]?.at ?? '/approvals/approvers',
    ),
    ...duplicates(
      input.approvals.floors.map((f) => f.environment),
      (i) => `/approvals/floors/${i}/environment`,
    ),
    ...duplicates(
      issuers.map((i) => i.name),
      (i) => `/ci/issuers/${i}/name`,
    ),
    ...duplicates(
      policies.map((p) => p.name),
      (i) => `/ci/policies/${i}/name`,
    ),
    ...policies.flatMap((p, i) =>
      issuerNames.has(p.issuer)
        ? []
        : [problem(`/ci/policies/${i}/issuer`, `names no entry of ci.issuers ("${p.issuer}")`)],
    ),
  ];
}

/**
 * A break-glass list names principals that exist: a plain name must be a configured approver
 * and `ci:<name>` a CI policy, since a typo there would quietly shrink the quorum's pool.
 * `group:` entries and other principals (`oidc:...`) cannot be checked here.
 */
function checkBreakGlass(input: CheckedInput): string[] {
  const approvers = new Set(input.approvals.approvers.map((a) => a.name));
  const policies = new Set(input.ci.policies.map((p) => `ci:${p.name}`));
  return input.approvals.breakGlass.approvers.flatMap((name, i) => {
    const at = `/approvals/breakGlass/approvers/${String(i)}`;
    if (name.startsWith('ci:') && !policies.has(name))
      return [problem(at, `names no entry of ci.policies ("${name}")`)];
    if (!name.includes(':') && !approvers.has(name))
      return [problem(at, `names no entry of approvals.approvers ("${name}")`)];
    return [];
  });
}

/** Builds the `authorizations` part of the configuration, collecting every problem. */
export function buildAuthorizations(
  input: CheckedInput,
  context: SecretContext,
  problems: string[],
): AuthorizationConfig {
  problems.push(...checkAuthorizations(input), ...checkBreakGlass(input));
  const { approvals, ci } = input;
  return {
    approvers: approvals.approvers.map((a, i) => buildApprover(a, i, context, problems)),
    ...(approvals.oidc === undefined ? {} : { oidc: { ...approvals.oidc } }),
    groupsClaim: approvals.groupsClaim,
    maxStatementLifetimeSeconds: approvals.maxStatementLifetimeSeconds,
    clockToleranceSeconds: approvals.clockToleranceSeconds,
    floors: Object.fromEntries(
      approvals.floors.map((f) => [f.environment, { ...f, approvers: [...f.approvers] }]),
    ),
    legacyEndpoint: approvals.legacyEndpoint,
    breakGlass: { ...approvals.breakGlass, approvers: [...approvals.breakGlass.approvers] },
    ci: {
      issuers: ci.issuers.map((i) => ({ ...i, algorithms: [...i.algorithms] })),
      policies: ci.policies.map((p) => ({
        ...p,
        claims: { ...p.claims },
        pipelines: [...p.pipelines],
        environments: [...p.environments],
      })),
    },
  };
}
