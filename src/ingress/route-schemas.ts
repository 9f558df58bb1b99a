/**
 * The files in schemas/ that routes declare to fastify, registered once on the app, and the
 * registry message for a request that does not match its route's schema.
 */
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { clip, PLAIN_TEXT_RULE } from '../text/text.js';
import { RFC3339_RULE } from '../time/kube-time.js';
import { addGatewayFormats, PLAIN_TEXT_FORMAT, readSchema } from '../schemas.js';

const BASE = 'https://promotion-gateway.dev/schemas';

/** `$ref`s of the registered schemas, for route definitions. */
export const SchemaRefs = {
  fluxEvent: `${BASE}/flux-event.schema.json#`,
  clusterParams: `${BASE}/routes.schema.json#/definitions/clusterParams`,
  pipelineParams: `${BASE}/routes.schema.json#/definitions/pipelineParams`,
  environmentParams: `${BASE}/routes.schema.json#/definitions/environmentParams`,
  legacyApprovalParams: `${BASE}/routes.schema.json#/definitions/legacyApprovalParams`,
  approvalBody: `${BASE}/authorization.schema.json#/definitions/approval`,
  trainApprovalBody: `${BASE}/authorization.schema.json#/definitions/trainApproval`,
  promotionBody: `${BASE}/authorization.schema.json#/definitions/promotion`,
  haltBody: `${BASE}/authorization.schema.json#/definitions/halt`,
  haltParams: `${BASE}/authorization.schema.json#/definitions/haltParams`,
  rollbackBody: `${BASE}/authorization.schema.json#/definitions/rollback`,
  holdParams: `${BASE}/authorization.schema.json#/definitions/holdParams`,
  fleetHaltBody: `${BASE}/authorization.schema.json#/definitions/fleetHalt`,
  fleetHaltParams: `${BASE}/authorization.schema.json#/definitions/fleetHaltParams`,
  whatIfPolicy: `${BASE}/what-if-policy.schema.json#`,
} as const;

/**
 * fastify's ajv, set to validate exactly as the schema says: no type coercion, no defaults,
 * nothing removed (fastify's defaults would turn `"name": 1` into `"1"` and accept it), and
 * with the gateway's formats (a `date-time` is checked as a signed statement's is).
 */
export const AJV_OPTIONS = {
  customOptions: {
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    allErrors: false,
    strict: true,
  },
  onCreate: addGatewayFormats,
} as const;

/** Registers every schema routes refer to; call once on the root instance before any route. */
export function installSchemas(app: FastifyInstance): void {
  app.addSchema(readSchema('flux-event.schema.json'));
  app.addSchema(readSchema('routes.schema.json'));
  app.addSchema(readSchema('authorization.schema.json'));
  app.addSchema(readSchema('what-if-policy.schema.json'));
}

const MAX_DETAIL_LENGTH = 200;

/** What a value breaking one of the gateway's formats must be, in words. */
const FORMAT_RULES: Readonly<Record<string, string>> = {
  'date-time': RFC3339_RULE,
  [PLAIN_TEXT_FORMAT]: PLAIN_TEXT_RULE,
};

/** A short message naming the first offending field: `Invalid body: /x must be string.` */
export function validationMessage(
  errors: readonly FastifySchemaValidationError[] | undefined,
): string {
  const first = errors?.[0];
  if (first === undefined) return 'Invalid body.';
  const path = first.instancePath === '' ? '(body)' : first.instancePath;
  const format = first.keyword === 'format' ? String(first.params.format) : '';
  const rule = FORMAT_RULES[format] ?? first.message ?? 'is invalid';
  return clip(`Invalid body: ${path} ${rule}.`, MAX_DETAIL_LENGTH);
}
