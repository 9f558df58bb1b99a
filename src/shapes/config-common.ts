/**
 * Pieces of the configuration file (schemas/config.schema.json) that several sections share: names,
 * secret sources, principal patterns, promotion windows.
 */
import { Type } from 'typebox';
import { ExactlyOneOf, Ref } from './kit.js';

/** Configuration `definitions.promotionWindow`. */
export const PromotionWindowInputSchema = Type.Object(
  {
    name: Ref<typeof DnsLabelSchema>('dnsLabel'),
    type: Type.Enum(['Allow', 'Deny']),
    rrule: Type.Optional(
      Type.String({
        description: 'DTSTART[;TZID=<timeZone>]:YYYYMMDDTHHMMSS and RRULE:... on two lines.',
        minLength: 1,
        maxLength: 1024,
      }),
    ),
    cron: Type.Optional(
      Type.String({
        description: 'Five fields, or six with seconds first, on the wall clock of timeZone.',
        minLength: 1,
        maxLength: 256,
      }),
    ),
    timeZone: Type.String({
      maxLength: 64,
      pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$',
    }),
    duration: Type.String({
      description:
        'Go form (8h, 90m: exact) or RFC 5545 (PT8H, P2DT14H, P2W: days and weeks on the calendar); at most 366 days.',
      maxLength: 32,
      pattern:
        '^(([0-9]+(\\.[0-9]+)?(ms|s|m|h))+|P([0-9]+W|[0-9]+D(T([0-9]+H([0-9]+M)?([0-9]+S)?|[0-9]+M([0-9]+S)?|[0-9]+S))?|T([0-9]+H([0-9]+M)?([0-9]+S)?|[0-9]+M([0-9]+S)?|[0-9]+S)))$',
    }),
    authorizationsPassFreeze: Type.Optional(
      Type.Boolean({
        description:
          "Whether a revision an environment's approval gate has approved may pass while this window holds.",
        default: false,
      }),
    ),
    mode: Type.Optional(
      Type.Enum(['Enforce', 'Shadow'], {
        description:
          'Enforce (the default) holds promotions; Shadow records what it would hold (wouldHold, promotion_gateway_shadow_holds_total) and holds nothing.',
      }),
    ),
    environments: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        description:
          'The environment names it applies to; empty, the default, is every environment.',
        maxItems: 64,
        default: [],
      }),
    ),
  },
  {
    description:
      "A promotion window: occurrences of an RFC 5545 rule (rrule) or a cron expression in an IANA time zone, each lasting duration; the same fields as a Pipeline's promotion.windows items, plus environments.",
    additionalProperties: false,
    oneOf: [{ required: ['rrule'] }, { required: ['cron'] }],
  },
);

/** Configuration `definitions.dnsLabel`. */
export const DnsLabelSchema = Type.String({
  maxLength: 63,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
});

/** Configuration `definitions.dnsSubdomain`. */
export const DnsSubdomainSchema = Type.String({
  maxLength: 253,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
});

/** Configuration `definitions.secretSource`: a secret's value, file or environment variable. */
export const SecretSourceSchema = ExactlyOneOf(
  Type.Object(
    {
      value: Type.Optional(Type.String({ minLength: 1 })),
      file: Type.Optional(Type.String({ minLength: 1 })),
      env: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
    },
    {
      description:
        'Exactly one of: an inline value, a file read as exact bytes, or an environment variable.',
    },
  ),
);

/** Configuration `definitions.principalPattern`. */
export const PrincipalPatternSchema = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^(group:|ci:)?[A-Za-z0-9][A-Za-z0-9._@:#/+-]*$',
  description: 'An approver name, group:<name> or ci:<policy-name>.',
});
