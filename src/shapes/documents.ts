/**
 * The documents generated from the declarations in this folder: each file of schemas/ and, for
 * the custom resources, the openAPIV3Schema of their CRD in manifests/crd. `npm run gen:schemas`
 * writes them; test/unit/schemas/generated.test.ts fails when one is out of date.
 */
import type { TSchema } from 'typebox';
import {
  ApprovalBodySchema,
  CombinationDigestSchema,
  TrainApprovalBodySchema,
  FleetHaltBodySchema,
  FleetHaltParamsSchema,
  HaltBodySchema,
  HaltParamsSchema,
  HoldParamsSchema,
  RollbackBodySchema,
  LabelSelectorSchema,
  PromotionBodySchema,
  PreviewDigestSchema,
  ReasonSchema,
  RevisionSchema,
} from './authorization.js';
import {
  ApproverInputSchema,
  CiIssuerInputSchema,
  CiPolicyInputSchema,
  FloorInputSchema,
  OidcIssuerInputSchema,
} from './config-approvals.js';
import {
  DnsLabelSchema,
  DnsSubdomainSchema,
  PrincipalPatternSchema,
  PromotionWindowInputSchema,
  SecretSourceSchema,
} from './config-common.js';
import { ClusterInputSchema, JwtInputSchema } from './config-identity.js';
import { WebhookInputSchema } from './config-promotion.js';
import { ConfigInputSchema } from './config.js';
import { FluxEventSchema } from './flux-event.js';
import { PipelineSchema } from './pipeline.js';
import { PromotionAlertSchema } from './promotion-alert.js';
import { PromotionTrainSchema } from './promotion-train.js';
import {
  WhatIfFleetWindowSchema,
  WhatIfPipelineRuleSchema,
  WhatIfPolicySchema,
  WhatIfPromotionSchema,
} from './what-if-policy.js';
import {
  ClusterParamsSchema,
  EnvironmentParamsSchema,
  LegacyApprovalParamsSchema,
  NameSchema,
  NamespaceSchema,
  PipelineParamsSchema,
} from './routes.js';

/** One generated schema file, and the CRD that carries the same schema, if any. */
export interface SchemaDocument {
  /** The file's name under schemas/. */
  readonly file: string;
  /** Annotations written ahead of the schema (`$schema`, `$id`, `title`, `$comment`, ...). */
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
        'Generated from src/shapes/pipeline.ts (npm run gen:schemas) with the openAPIV3Schema of manifests/crd/pipelines.weave.works_pipelines.yaml, which is the same schema plus API server hints.',
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
        'Generated from src/shapes/promotion-alert.ts (npm run gen:schemas) with the openAPIV3Schema of manifests/crd/notifications.promotion-gateway.dev_promotionalerts.yaml, which is the same schema plus API server hints. The gateway checks every PromotionAlert it reads against it (src/notify/alert-check.ts).',
    },
    schema: PromotionAlertSchema,
    crd: 'notifications.promotion-gateway.dev_promotionalerts.yaml',
  },
  {
    file: 'promotion-train.schema.json',
    header: {
      $schema: DRAFT_07,
      title: 'PromotionTrain (pipelines.promotion-gateway.dev/v1alpha1)',
      $comment:
        'Generated from src/shapes/promotion-train.ts (npm run gen:schemas) with the openAPIV3Schema of manifests/crd/pipelines.promotion-gateway.dev_promotiontrains.yaml, which is the same schema plus API server hints. The gateway checks every PromotionTrain it reads against it (src/trains/train-check.ts).',
    },
    schema: PromotionTrainSchema,
    crd: 'pipelines.promotion-gateway.dev_promotiontrains.yaml',
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
    file: 'authorization.schema.json',
    header: {
      $schema: DRAFT_07,
      $id: 'https://promotion-gateway.dev/schemas/authorization.schema.json',
      title: 'Bodies of the authorization doors',
      description:
        'An approval through SSO names the revision and the decision (a break-glass with its reason in comment); a CI-triggered promotion names the revision (and, for a break-glass, the decision and reason); a stop-the-line halt names its reason and, optionally, its environment and expiry (and, across Pipelines, a label selector and optionally a namespace). A signed approval (application/jose) carries all of it in the signed statement instead. Text a person writes (a reason, a comment) is kept in the Pipeline status and shown as it is, so its format plain-text refuses control and invisible formatting characters (C0 and C1 controls, bidirectional marks, embeddings, overrides and isolates, zero-width space; src/text/text.ts); date-time is RFC 3339 on a calendar date that exists (src/time/kube-time.ts).',
    },
    definitions: {
      revision: RevisionSchema,
      reason: ReasonSchema,
      previewDigest: PreviewDigestSchema,
      combinationDigest: CombinationDigestSchema,
      approval: ApprovalBodySchema,
      trainApproval: TrainApprovalBodySchema,
      halt: HaltBodySchema,
      labelSelector: LabelSelectorSchema,
      fleetHalt: FleetHaltBodySchema,
      fleetHaltParams: FleetHaltParamsSchema,
      haltParams: HaltParamsSchema,
      holdParams: HoldParamsSchema,
      rollback: RollbackBodySchema,
      promotion: PromotionBodySchema,
    },
  },
  {
    file: 'routes.schema.json',
    header: {
      $schema: DRAFT_07,
      $id: 'https://promotion-gateway.dev/schemas/routes.schema.json',
      title: "Path parameters of the gateway's routes",
      description:
        'Kubernetes names: a namespace is a DNS label, a Pipeline name a DNS subdomain, an environment name and a cluster name at most 253 characters. Requests whose path does not match are refused without any lookup.',
    },
    definitions: {
      clusterParams: ClusterParamsSchema,
      pipelineParams: PipelineParamsSchema,
      environmentParams: EnvironmentParamsSchema,
      namespace: NamespaceSchema,
      name: NameSchema,
      legacyApprovalParams: LegacyApprovalParamsSchema,
    },
  },
  {
    file: 'what-if-policy.schema.json',
    header: {
      $schema: DRAFT_07,
      $id: 'https://promotion-gateway.dev/schemas/what-if-policy.schema.json',
      title: 'A proposed policy for what-if',
      description:
        'The body of POST /v1/what-if and the file of promotion-gateway what-if --policy (YAML or JSON): fleet windows as the configuration declares them, and gate fields for the environments of the Pipelines a name or a label selector picks (docs/policy.md, What-if).',
    },
    schema: WhatIfPolicySchema,
    definitions: {
      pipelineRule: WhatIfPipelineRuleSchema,
      promotion: WhatIfPromotionSchema,
      fleetWindow: WhatIfFleetWindowSchema,
    },
  },
  {
    file: 'config.schema.json',
    header: {
      $schema: DRAFT_07,
      title: 'promotion-gateway configuration',
      $comment:
        'Generated from src/shapes/config.ts (npm run gen:schemas). Read by src/config/load.ts with ajv (useDefaults). Every object is closed: a misspelt key is an error. docs/configuration.md describes each field.',
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
