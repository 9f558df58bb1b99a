/**
 * The external checks of a Pipeline environment (`spec.environments[].promotion.checks`).
 */
import { Type } from 'typebox';
import { StringEnum } from './kit.js';

/** Pipeline `spec.environments[].promotion.checks[].commitStatus.repository.secretRef`. */
export const RepositorySecretRefSchema = Type.Object(
  { name: Type.String({ description: 'Name of the referent.', maxLength: 253, minLength: 1 }) },
  {
    description:
      "SecretRef names a Secret in the Pipeline's namespace holding the forge API 'token'.",
  },
);

/** Pipeline `spec.environments[].promotion.checks[].commitStatus.repository`. */
export const CheckRepositorySchema = Type.Object(
  {
    secretRef: RepositorySecretRefSchema,
    type: StringEnum(['github', 'gitlab'], { description: 'Type is the forge.' }),
    url: Type.String({
      description: "URL is the repository's HTTPS URL.",
      maxLength: 2048,
      pattern: '^https?://',
    }),
  },
  {
    description:
      "Repository is the forge repository and token Secret; default the environment's pull-request strategy's.",
  },
);

/** Pipeline `spec.environments[].promotion.checks[].commitStatus`. */
export const CommitStatusCheckSpecSchema = Type.Object(
  {
    cacheSeconds: Type.Optional(
      Type.Integer({
        description:
          'CacheSeconds is how long a result stands before the check is read again (default 60; an Unknown result at most 30).',
        maximum: 86400,
        minimum: 1,
      }),
    ),
    contexts: Type.Optional(
      Type.Array(Type.String({ maxLength: 255, minLength: 1 }), {
        description:
          'Contexts are the status contexts and check-run names that must succeed; empty means every one reported.',
        maxItems: 32,
      }),
    ),
    ref: Type.Optional(
      Type.String({
        description:
          "Ref names the commit as a ref template, e.g. v{{revision}} for a chart version's tag; default the commit of a Flux Git revision (main@sha1:<sha>).",
        maxLength: 255,
        minLength: 1,
        pattern: '^[^\\s~^:?*\\[\\\\]+$',
      }),
    ),
    repository: Type.Optional(CheckRepositorySchema),
    timeoutSeconds: Type.Optional(
      Type.Integer({
        description: 'TimeoutSeconds bounds one read of the check (default 10).',
        maximum: 60,
        minimum: 1,
      }),
    ),
  },
  {
    description:
      "CommitStatus waits for the forge's commit statuses and check runs of the revision's commit.",
  },
);

/** Pipeline `spec.environments[].promotion.checks[].http.expect.json`. */
export const HttpExpectJsonSchema = Type.Object(
  {
    equals: Type.String({
      description:
        'Equals is the expected value as text: a string as is, a number, boolean or null as its JSON (200, true, null).',
      maxLength: 256,
    }),
    path: Type.String({
      description: 'Path is a JSON pointer (/a/0/b) or a dotted path (a.0.b).',
      maxLength: 256,
      minLength: 1,
    }),
  },
  { description: 'JSON compares one field of the answer.' },
);

/** Pipeline `spec.environments[].promotion.checks[].http.expect`. */
export const HttpExpectSchema = Type.Object(
  {
    json: Type.Optional(HttpExpectJsonSchema),
    status: Type.Optional(
      Type.Integer({
        description: 'Status is the HTTP status that passes.',
        maximum: 599,
        minimum: 100,
      }),
    ),
  },
  {
    description:
      "Expect says what answer passes: the status (default any 2xx) and optionally one JSON field's value.",
  },
);

/** Pipeline `spec.environments[].promotion.checks[].http.secretRef`. */
export const HttpSecretRefSchema = Type.Object(
  { name: Type.String({ description: 'Name of the referent.', maxLength: 253, minLength: 1 }) },
  {
    description:
      "SecretRef names a Secret in the Pipeline's namespace whose 'token' is sent as a Bearer token and whose 'headers' (a YAML map) are sent as headers.",
  },
);

/** Pipeline `spec.environments[].promotion.checks[].http`. */
export const HttpCheckSpecSchema = Type.Object(
  {
    cacheSeconds: Type.Optional(
      Type.Integer({
        description:
          'CacheSeconds is how long a result stands before the check is read again (default 60; an Unknown result at most 30).',
        maximum: 86400,
        minimum: 1,
      }),
    ),
    expect: Type.Optional(HttpExpectSchema),
    secretRef: Type.Optional(HttpSecretRefSchema),
    timeoutSeconds: Type.Optional(
      Type.Integer({
        description: 'TimeoutSeconds bounds one read of the check (default 10).',
        maximum: 60,
        minimum: 1,
      }),
    ),
    url: Type.String({
      description: 'URL is called with GET; {{revision}} is replaced by the revision, URL-encoded.',
      maxLength: 2048,
      pattern: '^https?://',
    }),
  },
  { description: 'HTTP calls a URL the gateway configuration admits and compares the answer.' },
);

/** Pipeline `spec.environments[].promotion.checks[]`. */
export const CheckSpecSchema = Type.Object(
  {
    commitStatus: Type.Optional(CommitStatusCheckSpecSchema),
    http: Type.Optional(HttpCheckSpecSchema),
    mode: Type.Optional(
      StringEnum(['Enforce', 'Shadow'], {
        description:
          'Mode is Enforce (the default: a revision waits until the check passes) or Shadow (the check is read while the revision is pending and what it would have held is recorded when the promotion goes on: wouldHold, the history entry, promotion_gateway_shadow_holds_total, a ShadowHold notification).',
      }),
    ),
    name: Type.String({
      description: 'Name identifies the check in decisions and status.',
      maxLength: 63,
      minLength: 1,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    }),
  },
  {
    oneOf: [
      { properties: { http: {} }, required: ['http'] },
      { properties: { commitStatus: {} }, required: ['commitStatus'] },
    ],
  },
);
