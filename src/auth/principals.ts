/**
 * The authorization doors' credentials turned into a Principal: an approver's signed statement
 * (which must name exactly the pipeline and environment of the URL), a person's SSO token, or
 * a CI job's token matched against the CI policies. Every failure is `undefined`, which the
 * HTTP layer answers with the one indistinguishable 401.
 */
import { decodeJwt } from 'jose';
import type { AuthorizationConfig } from '../config/gateway-config.js';
import type { PipelineRef } from '../pipeline/id.js';
import { matchingPolicies, policyCovers } from './ci-policy.js';
import { OidcVerifier } from './oidc.js';
import { statementSigner, verifyStatement } from './statement.js';
import type { Identity } from './identity.js';

/** The pipeline and environment a request's URL names. */
export interface AuthorizationTarget {
  pipeline: PipelineRef;
  environment: string;
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

  /** The configured CI issuer an (unverified) token claims to come from. */
  private ciIssuerOf(token: string): string | undefined {
    try {
      const iss = decodeJwt(token).iss;
      return iss === undefined ? undefined : this.ciByIss.get(iss);
    } catch {
      return undefined;
    }
  }

  /** An approver's statement, valid at `now` and naming exactly `target`. */
  async fromStatement(
    statement: string,
    target: AuthorizationTarget,
    now: number,
  ): Promise<Identity | undefined> {
    const name = statementSigner(statement);
    const approver = this.config.approvers.find((a) => a.name === name);
    if (approver === undefined) return undefined;
    const claims = await verifyStatement(
      statement,
      approver,
      {
        maxLifetimeSeconds: this.config.maxStatementLifetimeSeconds,
        clockToleranceSeconds: this.config.clockToleranceSeconds,
      },
      now,
    );
    const { namespace, name: pipeline } = target.pipeline;
    if (
      claims?.pipeline !== `${namespace}/${pipeline}` ||
      claims.environment !== target.environment
    )
      return undefined;
    return {
      kind: 'statement',
      subject: approver.name,
      scopes: NO_SCOPES,
      principal: {
        name: approver.name,
        kind: 'human',
        groups: approver.groups,
        jti: claims.jti,
        expiresAt: claims.exp * 1000,
      },
      claim: {
        revision: claims.revision,
        decision: claims.decision,
        ...(claims.comment === undefined ? {} : { comment: claims.comment }),
        statement,
      },
    };
  }

  /** A person's SSO token: a configured approver when one claims the identity. */
  async fromSso(token: string, now: number): Promise<Identity | undefined> {
    const claims = this.sso === undefined ? undefined : await this.sso.verify(token, now);
    if (claims === undefined) return undefined;
    const identity = `${claims.iss ?? ''}#${claims.sub}`;
    const approver = this.config.approvers.find((a) => a.oidcSubjects.includes(identity));
    const fromToken = claims[this.config.groupsClaim];
    const groups = [
      ...(approver?.groups ?? []),
      ...(Array.isArray(fromToken) ? fromToken.filter((g) => typeof g === 'string') : []),
    ].slice(0, 64);
    const name = approver?.name ?? `oidc:${identity}`;
    return {
      kind: 'sso',
      subject: name,
      scopes: NO_SCOPES,
      principal: { name, kind: 'human', groups, jti: claims.jti, expiresAt: claims.exp * 1000 },
    };
  }

  /**
   * A CI job's token, verified by the configured CI issuer it names. `allowed` is false when
   * it verifies but no policy lets it authorize `target` (the caller answers 403).
   */
  async fromCi(
    token: string,
    target: AuthorizationTarget,
    now: number,
  ): Promise<{ identity: Identity; allowed: boolean } | undefined> {
    const issuer = this.ciIssuerOf(token);
    const verifier = issuer === undefined ? undefined : this.ci.get(issuer);
    if (issuer !== undefined && verifier !== undefined) {
      const claims = await verifier.verify(token, now);
      if (claims === undefined) return undefined;
      const policies = matchingPolicies(this.config.ci.policies, issuer, claims);
      const policy = policies.find((p) => policyCovers(p, target.pipeline, target.environment));
      const name = `ci:${(policy ?? policies[0])?.name ?? `${issuer}#${claims.sub}`}`;
      const identity: Identity = {
        kind: 'ci',
        subject: name,
        scopes: NO_SCOPES,
        principal: { name, kind: 'ci', groups: [], jti: claims.jti, expiresAt: claims.exp * 1000 },
      };
      return { identity, allowed: policy !== undefined };
    }
    return undefined;
  }
}
