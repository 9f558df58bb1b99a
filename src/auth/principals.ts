/**
 * The authorization doors' credentials turned into a Principal: an approver's signed statement
 * (which must name exactly the pipeline and environment of the URL), a person's SSO token, or
 * a CI job's token matched against the CI policies. Every failure is a Refusal naming its
 * reason, which the HTTP layer logs and answers with the one indistinguishable 401.
 */
import { decodeJwt } from 'jose';
import type { AuthorizationConfig } from '../config/gateway-config.js';
import { boundedId, MAX_RECORDED_PRINCIPAL } from '../text/bounded-id.js';
import type { PipelineRef } from '../pipeline/id.js';
import { matchingPolicies, policyCovers } from './ci-policy.js';
import { OidcVerifier } from './oidc.js';
import { factText, refuse, verified, type Checked } from './refusal.js';
import { APPROVAL_STATEMENT_FORM } from './statement.js';
import { checkApproverStatement, statementPrincipal } from './approver-statement.js';
import { checkRollbackStatement } from './rollback-statement.js';
import { checkTrainStatement, type TrainTarget } from './train-statement.js';
import type { Identity } from './identity.js';

/** The pipeline and environment a request's URL names. */
export interface AuthorizationTarget {
  pipeline: PipelineRef;
  environment: string;
}

/** A CI job's identity, and whether a policy lets it authorize the target (else 403). */
export interface CiCaller {
  identity: Identity;
  allowed: boolean;
}

const NO_SCOPES = { clusters: [], pipelines: [] } as const;

/** Authenticates the three authorization doors under one configuration. */
export class Principals {
  private readonly sso: OidcVerifier | undefined;
  private readonly ci: ReadonlyMap<string, OidcVerifier>;
  /** CI issuer name by its `iss` URL, to pick the one verifier a token can be for. */
  private readonly ciByIss: ReadonlyMap<string, string>;

  /** `verifiers` overrides the remote-JWKS verifiers (tests); keys are issuer names, `sso`. */
  constructor(
    private readonly config: AuthorizationConfig,
    verifiers: { sso?: OidcVerifier; ci?: ReadonlyMap<string, OidcVerifier> } = {},
  ) {
    this.sso =
      verifiers.sso ?? (config.oidc === undefined ? undefined : new OidcVerifier(config.oidc));
    this.ci = verifiers.ci ?? new Map(config.ci.issuers.map((i) => [i.name, new OidcVerifier(i)]));
    this.ciByIss = new Map(config.ci.issuers.map((i) => [i.issuer, i.name]));
  }

  /** The `iss` an (unverified) token claims, to pick the verifier. */
  private static issOf(token: string): Checked<string> {
    let iss: string | undefined;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return refuse('Malformed');
    }
    return iss === undefined ? refuse('MissingClaim', { claim: 'iss' }) : verified(iss);
  }

  /** An approver's statement, valid at `now` and naming exactly `target`. */
  async fromStatement(
    statement: string,
    target: AuthorizationTarget,
    now: number,
  ): Promise<Checked<Identity>> {
    const checked = await checkApproverStatement(
      this.config,
      statement,
      now,
      APPROVAL_STATEMENT_FORM,
    );
    if (!checked.ok) return checked;
    const { approver, claims } = checked.value;
    const { namespace, name: pipeline } = target.pipeline;
    if (claims.pipeline !== `${namespace}/${pipeline}` || claims.environment !== target.environment)
      return refuse('StatementForAnotherTarget', { kid: factText(approver.name) });
    return verified({
      kind: 'statement',
      subject: approver.name,
      scopes: NO_SCOPES,
      principal: statementPrincipal(checked.value),
      claim: {
        revision: claims.revision,
        decision: claims.decision,
        ...(claims.comment === undefined ? {} : { comment: claims.comment }),
        ...(claims.previewDigest === undefined ? {} : { previewDigest: claims.previewDigest }),
        statement,
      },
    });
  }

  /** An approver's rollback statement, valid at `now` and naming exactly `target`. */
  fromRollbackStatement(
    statement: string,
    target: AuthorizationTarget,
    now: number,
  ): Promise<Checked<Identity>> {
    return checkRollbackStatement(this.config, statement, target, now);
  }

  /** An approver's train approval statement, valid at `now` and naming exactly `target`. */
  fromTrainStatement(
    statement: string,
    target: TrainTarget,
    now: number,
  ): Promise<Checked<Identity>> {
    return checkTrainStatement(this.config, statement, target, now);
  }

  /** Whether a bearer token names a configured CI issuer (a door people and CI jobs share). */
  isCiToken(token: string): boolean {
    const iss = Principals.issOf(token);
    return iss.ok && this.ciByIss.has(iss.value);
  }

  /** A person's SSO token: a configured approver when one claims the identity. */
  async fromSso(token: string, now: number): Promise<Checked<Identity>> {
    if (this.sso === undefined) return refuse('NotConfigured');
    const checked = await this.sso.verify(token, now);
    if (!checked.ok) return checked;
    const claims = checked.value;
    const identity = `${claims.iss ?? ''}#${claims.sub}`;
    const approver = this.config.approvers.find((a) => a.oidcSubjects.includes(identity));
    const fromToken = claims[this.config.groupsClaim];
    const groups = [
      ...(approver?.groups ?? []),
      ...(Array.isArray(fromToken) ? fromToken.filter((g) => typeof g === 'string') : []),
    ].slice(0, 64);
    // A long issuer and subject would not fit the status's principal field: its digest does.
    const name = approver?.name ?? `oidc:${boundedId(identity, MAX_RECORDED_PRINCIPAL - 5)}`;
    return verified({
      kind: 'sso',
      subject: name,
      scopes: NO_SCOPES,
      principal: { name, kind: 'human', groups, jti: claims.jti, expiresAt: claims.exp * 1000 },
    });
  }

  /**
   * A CI job's token, verified by the configured CI issuer it names. `allowed` is false when
   * it verifies but no policy lets it authorize `target` (the caller answers 403).
   */
  async fromCi(
    token: string,
    target: AuthorizationTarget,
    now: number,
  ): Promise<Checked<CiCaller>> {
    const iss = Principals.issOf(token);
    if (!iss.ok) return iss;
    const issuer = this.ciByIss.get(iss.value);
    const verifier = issuer === undefined ? undefined : this.ci.get(issuer);
    if (issuer === undefined || verifier === undefined)
      return refuse('UnknownIssuer', { issuer: factText(iss.value) });
    const checked = await verifier.verify(token, now);
    if (!checked.ok) return checked;
    const claims = checked.value;
    const policies = matchingPolicies(this.config.ci.policies, issuer, claims);
    const policy = policies.find((p) => policyCovers(p, target.pipeline, target.environment));
    const name = `ci:${(policy ?? policies[0])?.name ?? `${issuer}#${claims.sub}`}`;
    const identity: Identity = {
      kind: 'ci',
      subject: name,
      scopes: NO_SCOPES,
      principal: { name, kind: 'ci', groups: [], jti: claims.jti, expiresAt: claims.exp * 1000 },
    };
    return verified({ identity, allowed: policy !== undefined });
  }
}
