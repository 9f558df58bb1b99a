/**
 * The clusters the gateway reads and the JWT settings its callers sign with, as the configuration
 * file declares them.
 */
import { Type } from 'typebox';
import { Ref } from './kit.js';
import { DnsLabelSchema, DnsSubdomainSchema, SecretSourceSchema } from './config-common.js';

/** Configuration `#cluster.gitopsCluster`. */
export const GitopsClusterInputSchema = Type.Object(
  {
    namespace: Ref<typeof DnsLabelSchema>('dnsLabel'),
    name: Ref<typeof DnsSubdomainSchema>('dnsSubdomain'),
  },
  {
    description:
      'The GitopsCluster holding the kubeconfig; absent only for the management cluster.',
    additionalProperties: false,
  },
);

/** Configuration `definitions.cluster`. */
export const ClusterInputSchema = Type.Object(
  {
    name: Ref<typeof DnsLabelSchema>('dnsLabel'),
    gitopsCluster: Type.Optional(GitopsClusterInputSchema),
    hmacKeys: Type.Optional(
      Type.Array(Ref<typeof SecretSourceSchema>('secretSource'), {
        description: "Flux generic-hmac keys (the Provider Secret's `token`); two during rotation.",
        maxItems: 2,
        default: [],
      }),
    ),
    jwtSubjects: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'JWT `sub` values that may post events for this cluster.',
        uniqueItems: true,
        default: [],
      }),
    ),
  },
  { additionalProperties: false },
);

/** Configuration `definitions.jwt`. */
export const JwtInputSchema = Type.Object(
  {
    issuer: Type.String({ minLength: 1 }),
    audience: Type.String({ minLength: 1 }),
    algorithms: Type.Array(
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
        'Ed25519',
        'HS256',
        'HS384',
        'HS512',
      ]),
      { minItems: 1, uniqueItems: true },
    ),
    jwksUrl: Type.Optional(
      Type.String({
        description: 'https only; http is allowed for localhost and 127.0.0.1.',
        format: 'uri',
        pattern: '^(https://[^/?#\\s]+|http://(localhost|127\\.0\\.0\\.1)(:[0-9]+)?)([/?#]\\S*)?$',
      }),
    ),
    publicKeys: Type.Optional(
      Type.Array(Ref<typeof SecretSourceSchema>('secretSource'), {
        description: 'Static verification keys: PEM (SPKI) or JWK JSON text.',
        minItems: 1,
      }),
    ),
    clockToleranceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 300, default: 5 })),
    maxTokenAgeSeconds: Type.Optional(
      Type.Integer({
        description:
          'Tokens must carry iat; one issued longer ago than this, or valid (exp - iat) for longer, is refused. iat in the future beyond the clock tolerance is refused.',
        minimum: 60,
        maximum: 31536000,
        default: 86400,
      }),
    ),
  },
  {
    description: 'JWT verification (jose). Keys come from jwksUrl, publicKeys, or both.',
    additionalProperties: false,
    anyOf: [{ required: ['jwksUrl'] }, { required: ['publicKeys'] }],
  },
);
