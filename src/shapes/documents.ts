/**
 * The documents generated from the declarations in this folder: each file of schemas/ and, for
 * the custom resources, the openAPIV3Schema of their CRD in manifests/crd. `npm run gen:schemas`
 * writes them; test/unit/schemas/generated.test.ts fails when one is out of date.
 */
import type { TSchema } from 'typebox';
import {
  ApproverInputSchema,
  CiIssuerInputSchema,
  CiPolicyInputSchema,
} from './config-approvals.js';
import { FloorInputSchema, OidcIssuerInputSchema } from './config-approvals.js';
import { DnsLabelSchema, DnsSubdomainSchema, PrincipalPatternSchema } from './config-common.js';
import { PromotionWindowInputSchema, SecretSourceSchema } from './config-common.js';
import { ClusterInputSchema, JwtInputSchema } from './config-identity.js';
import { WebhookInputSchema } from './config-promotion.js';
import { ConfigInputSchema } from './config.js';
import { FluxEventSchema } from './flux-event.js';
import { PipelineSchema } from './pipeline.js';
import { PromotionAlertSchema } from './promotion-alert.js';

/** One generated schema file, and the CRD that carries the same schema, if any. */
export interface SchemaDocument {
  /** The file's name under schemas/. */
  readonly file: string;
  /** Annotations written ahead of the schema (`$schema`, `$id`, `title`, `$comment`). */
  readonly header: Readonly<Record<string, string>>;
  /** The document's own schema, if it is more than a set of definitions. */
  readonly schema?: TSchema;
  /** `definitions` of the file, which `Ref`s in it point to. */
  readonly definitions?: Readonly<Record<string, TSchema>>;
  /** The CRD (a path under manifests/crd) whose openAPIV3Schema is `schema`. */
  readonly crd?: string;
}

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** Every generated document, in the order the generator writes them. */
export const schemaDocuments: readonly SchemaDocument[] = [
  {
    file: 'pipeline.schema.json',
    header: {
      $schema: DRAFT_07,
      title: 'Pipeline (pipelines.weave.works/v1alpha1)',
      $comment:
        'Equivalent to the openAPIV3Schema of manifests/crd/pipelines.weave.works_pipelines.yaml; test/unit/schemas/pipeline-schema.test.ts keeps them in step.',
    },
    schema: PipelineSchema,
    crd: 'pipelines.weave.works_pipelines.yaml',
  },
  {
    file: 'promotion-alert.schema.json',
    header: {
      $schema: DRAFT_07,
      title: 'PromotionAlert (notifications.promotion-gateway.dev/v1alpha1)',
      $comment:
        'Equivalent to the openAPIV3Schema of manifests/crd/notifications.promotion-gateway.dev_promotionalerts.yaml; test/unit/schemas/promotion-alert-schema.test.ts keeps them in step. The gateway checks every PromotionAlert it reads against it (src/notify/alert-check.ts).',
    },
    schema: PromotionAlertSchema,
    crd: 'notifications.promotion-gateway.dev_promotionalerts.yaml',
  },
  {
    file: 'flux-event.schema.json',
    header: {
      $schema: DRAFT_07,
      $id: 'https://promotion-gateway.dev/schemas/flux-event.schema.json',
      title: 'Flux notification-controller event',
    },
    schema: FluxEventSchema,
  },
  {
    file: 'config.schema.json',
    header: {
      $schema: DRAFT_07,
      title: 'promotion-gateway configuration',
      $comment:
        'Read by src/config/load.ts with ajv (useDefaults). Every object is closed: a misspelt key is an error. docs/configuration.md describes each field.',
    },
    schema: ConfigInputSchema,
    definitions: {
      promotionWindow: PromotionWindowInputSchema,
      dnsLabel: DnsLabelSchema,
      dnsSubdomain: DnsSubdomainSchema,
      secretSource: SecretSourceSchema,
      cluster: ClusterInputSchema,
      jwt: JwtInputSchema,
      webhookEndpoint: WebhookInputSchema,
      principalPattern: PrincipalPatternSchema,
      oidcIssuer: OidcIssuerInputSchema,
      approver: ApproverInputSchema,
      floor: FloorInputSchema,
      ciPolicy: CiPolicyInputSchema,
      ciIssuer: CiIssuerInputSchema,
    },
  },
];

/** Copies `value` as plain JSON, leaving out the `x-kubernetes-*` keys if `kubernetes` is false. */
function plain(value: unknown, kubernetes: boolean): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, field: unknown) =>
      !kubernetes && key.startsWith('x-kubernetes-') ? undefined : field,
    ),
  );
}

/**
 * The JSON Schema file of `document`: its header, its schema and its definitions, without the
 * API server's `x-kubernetes-*` hints (ajv in strict mode rejects unknown keywords).
 */
export function jsonSchemaOf(document: SchemaDocument): Record<string, unknown> {
  return {
    ...document.header,
    ...(document.schema === undefined ? {} : (plain(document.schema, false) as object)),
    ...(document.definitions === undefined
      ? {}
      : { definitions: plain(document.definitions, false) }),
  };
}

/** The openAPIV3Schema of `document`'s CRD: its schema with the `x-kubernetes-*` hints. */
export function openApiSchemaOf(document: SchemaDocument): Record<string, unknown> {
  return plain(document.schema ?? {}, true) as Record<string, unknown>;
}
