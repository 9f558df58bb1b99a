/**
 * Who may authorize a promotion, as the configuration file declares it: OIDC issuers, approvers,
 * floors, break-glass, CI policies.
 */
import { Type, type TString } from 'typebox';
import { MapOf, Ref } from './kit.js';
import { PrincipalPatternSchema, SecretSourceSchema } from './config-common.js';

/**
 * The fields an OIDC issuer of people and a CI issuer share: where its keys are, which
 * algorithms it signs with, and how old and how early a token may be. A function, so that each
 * schema gets objects of its own.
 */
function oidcTokenFields() {
  return {
    jwksUrl: Ref<TString>('jwt/properties/jwksUrl'),
    algorithms: Type.Optional(
      Type.Array(
        Type.Enum([
          'RS256',
          'RS384',
          'RS512',
          'PS256',
          'PS384',
          'PS512',
          'ES256',
          'ES384',
          'ES512',
          'EdDSA',
        ]),
        { minItems: 1, uniqueItems: true, default: ['RS256'] },
      ),
    ),
    maxTokenAgeSeconds: Type.Optional(
      Type.Integer({
        description: 'Tokens issued longer ago than this (iat) are refused; iat is required.',
        minimum: 1,
        maximum: 86400,
        default: 600,
      }),
    ),
    clockToleranceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 300, default: 30 })),
  };
}

/** Configuration `definitions.oidcIssuer`. */
export const OidcIssuerInputSchema = Type.Object(
  {
    issuer: Type.String({ minLength: 1 }),
    audience: Type.String({ minLength: 1 }),
    ...oidcTokenFields(),
  },
  {
    description:
      'An OpenID Connect issuer whose tokens the gateway accepts: jose verifies them against its JWKS (fetched lazily, cached, refreshed on an unknown kid at most every 30 s).',
    additionalProperties: false,
  },
);

/** Configuration `definitions.approver`. */
export const ApproverInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' }),
    publicKeys: Type.Optional(
      Type.Array(Ref<typeof SecretSourceSchema>('secretSource'), {
        description: "PEM (SPKI) or JWK JSON text of the approver's public key(s).",
        minItems: 1,
        maxItems: 8,
      }),
    ),
    oidcSubjects: Type.Optional(
      Type.Array(Type.String({ minLength: 3, pattern: '^\\S+#\\S+$' }), { minItems: 1 }),
    ),
    groups: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { default: [] }),
    ),
  },
  {
    description:
      'A person who may approve: by a statement signed with one of publicKeys (EdDSA or ES256), and/or through SSO as one of oidcSubjects (<issuer>#<sub>).',
    additionalProperties: false,
    anyOf: [{ required: ['publicKeys'] }, { required: ['oidcSubjects'] }],
  },
);

/** Configuration `definitions.floor`. */
export const FloorInputSchema = Type.Object(
  {
    environment: Type.String({ minLength: 1, maxLength: 253 }),
    minApprovals: Type.Optional(Type.Integer({ minimum: 0, maximum: 16, default: 1 })),
    minHumanApprovals: Type.Optional(Type.Integer({ minimum: 0, maximum: 16, default: 0 })),
    approvers: Type.Optional(
      Type.Array(Ref<typeof PrincipalPatternSchema>('principalPattern'), { default: [] }),
    ),
  },
  {
    description:
      "The least a Pipeline's gate for environments of this name may ask; a Pipeline can only be stricter.",
    additionalProperties: false,
  },
);

/** Configuration `definitions.ciPolicy`. */
export const CiPolicyInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }),
    issuer: Type.String({ description: 'The name of an entry of ci.issuers.', minLength: 1 }),
    claims: MapOf(Type.String({ minLength: 1, maxLength: 1024 }), { minProperties: 1 }),
    pipelines: Type.Array(
      Type.String({
        minLength: 1,
        pattern: '^(\\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?/(\\*|[a-z0-9]([-a-z0-9.]*[a-z0-9])?))$',
      }),
      { description: 'namespace/name, namespace/* or *.', minItems: 1 },
    ),
    environments: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1 }),
  },
  {
    description:
      'Which CI jobs may authorize promotions: a token of `issuer` whose claims all match (exact, or a simple glob with *) may authorize the listed pipelines and environments, as principal ci:<name>.',
    additionalProperties: false,
  },
);

/** Configuration `definitions.ciIssuer`. */
export const CiIssuerInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }),
    issuer: Type.String({ minLength: 1 }),
    audience: Type.String({ minLength: 1 }),
    ...oidcTokenFields(),
  },
  {
    description:
      "A CI provider's OIDC issuer (GitHub Actions: https://token.actions.githubusercontent.com; GitLab: https://gitlab.com or your instance), named for ci.policies.",
    additionalProperties: false,
  },
);

/** Configuration `approvals.breakGlass`. */
export const BreakGlassInputSchema = Type.Object(
  {
    minApprovals: Type.Optional(
      Type.Integer({
        description:
          'Distinct allowed principals that must authorize the same revision of the same environment.',
        minimum: 1,
        maximum: 16,
        default: 2,
      }),
    ),
    approvers: Type.Optional(
      Type.Array(Ref<typeof PrincipalPatternSchema>('principalPattern'), {
        description:
          'Who may break the glass: configured approver names, group:<name>, ci:<policy>. Empty: break-glass is disabled.',
        maxItems: 64,
        default: [],
      }),
    ),
    validForSeconds: Type.Optional(
      Type.Integer({
        description:
          'How long a recorded break-glass authorization counts (its quorum must be met within it).',
        minimum: 60,
        maximum: 86400,
        default: 3600,
      }),
    ),
  },
  {
    description:
      "Break-glass authorizations (docs/policy.md, Break-glass): a quorum of these principals, each with a reason, lets one revision of one environment pass its halts and promotion windows. Disabled while approvers is empty; a Pipeline's promotion.breakGlass can only be stricter.",
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `approvals`. */
export const ApprovalsInputSchema = Type.Object(
  {
    approvers: Type.Optional(
      Type.Array(Ref<typeof ApproverInputSchema>('approver'), { default: [] }),
    ),
    oidc: Type.Optional(
      Ref<typeof OidcIssuerInputSchema>('oidcIssuer', {
        description: "The organisation's identity provider, for people who approve through SSO.",
      }),
    ),
    groupsClaim: Type.Optional(
      Type.String({
        description: "The SSO token claim listing the person's groups.",
        minLength: 1,
        default: 'groups',
      }),
    ),
    maxStatementLifetimeSeconds: Type.Optional(
      Type.Integer({
        description: "A signed statement's exp may be at most this long after its iat.",
        minimum: 10,
        maximum: 86400,
        default: 900,
      }),
    ),
    clockToleranceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 300, default: 30 })),
    floors: Type.Optional(Type.Array(Ref<typeof FloorInputSchema>('floor'), { default: [] })),
    legacyEndpoint: Type.Optional(
      Type.Boolean({
        description:
          "Serve weave's POST /approval/{ns}/{pipeline}/{env}/{revision} (HMAC over an empty body with the Pipeline's hmac-key). Off by default: the signature does not cover the URL.",
        default: false,
      }),
    ),
    breakGlass: Type.Optional(BreakGlassInputSchema),
  },
  {
    description:
      'Signed approvals by people, their floors, and the legacy weave approval endpoint.',
    additionalProperties: false,
    default: {},
  },
);

/** Configuration `ci`. */
export const CiInputSchema = Type.Object(
  {
    issuers: Type.Optional(
      Type.Array(Ref<typeof CiIssuerInputSchema>('ciIssuer'), { default: [] }),
    ),
    policies: Type.Optional(
      Type.Array(Ref<typeof CiPolicyInputSchema>('ciPolicy'), { default: [] }),
    ),
  },
  {
    description:
      'CI-triggered promotions: the OIDC issuers whose tokens CI jobs present, and the policies that map their claims to what they may trigger.',
    additionalProperties: false,
    default: {},
  },
);
