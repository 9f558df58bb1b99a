/**
 * The stop-the-line doors of one Pipeline (docs/api.md, "Stop-the-line halts"):
 *   POST   /v1/pipelines/{ns}/{name}/halts        `{environment?, reason, expiresAt?}`: 201
 *   DELETE /v1/pipelines/{ns}/{name}/halts/{id}   lifts one halt: 200
 * with a person's SSO bearer token or a CI job's OIDC token (told apart by its issuer). Each
 * authenticates first; who may halt is judged by the Halter (src/halts/halter.ts). The
 * doors across Pipelines, and signed halt statements: fleet-halt-routes.ts.
 */
import type { FastifyPluginCallback, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { bearerToken } from '../auth/authenticate.js';
import type { AuthorizationTarget, Principals } from '../auth/principals.js';
import { refuse, verified, type Checked } from '../auth/refusal.js';
import type { Identity } from '../auth/identity.js';
import type { HaltCaller, Halter, HaltRequest, HaltResult } from '../halts/halter.js';
import { GatewayError } from './http-errors.js';
import type { PipelineRef } from '../pipeline/id.js';
import type { HaltRecord } from '../pipeline/pipeline-resource.js';
import { callerOf } from './authenticated.js';
import { SchemaRefs, validationMessage } from './route-schemas.js';
import type { PipelineParamsSchema } from '../shapes/routes.js';
import type { Static } from 'typebox';

/** What the halt routes need. */
export interface HaltRouteOptions {
  principals: Principals;
  halter: Halter;
  now: () => number;
}

type PipelineParams = Static<typeof PipelineParamsSchema>;

type Scope = Parameters<FastifyPluginCallback>[0];

/** Registers the two doors; needs installAuthentication on its scope. */
export function registerHalts(app: Scope, options: HaltRouteOptions): void {
  const { principals, halter, now } = options;
  const authenticate = (request: FastifyRequest) =>
    identifyBearer(principals, request, now, refOf(request.params as PipelineParams));
  app.post<{ Params: PipelineParams; Body: HaltRequest }>('/v1/pipelines/:namespace/:name/halts', {
    schema: { params: { $ref: SchemaRefs.pipelineParams }, body: { $ref: SchemaRefs.haltBody } },
    attachValidation: true,
    config: { door: 'halt', authenticate },
    handler: async (request, reply) => {
      const caller = bearerCaller(request, principals, now);
      checkValid(request);
      const result = await halter.halt(refOf(request.params), caller, request.body);
      const answer = haltAnswer(result);
      return reply.code(result.ok && result.repeated === true ? 200 : 201).send(answer);
    },
  });
  app.delete<{ Params: PipelineParams & { id: string } }>(
    '/v1/pipelines/:namespace/:name/halts/:id',
    {
      schema: { params: { $ref: SchemaRefs.haltParams } },
      attachValidation: true,
      config: { door: 'halt', authenticate },
      handler: async (request, reply) => {
        const caller = bearerCaller(request, principals, now);
        checkValid(request);
        const result = await halter.lift(refOf(request.params), caller, request.params.id);
        return reply.code(200).send({ lifted: true, ...haltAnswer(result) });
      },
    },
  );
}

function refOf(params: PipelineParams): PipelineRef {
  return { namespace: params.namespace, name: params.name };
}

/**
 * A CI issuer's token is a CI job's; any other bearer token must be a person's SSO token.
 * `pipeline` names the target a CI job's refusals are logged for (any, across Pipelines).
 */
export async function identifyBearer(
  principals: Principals,
  request: FastifyRequest,
  now: () => number,
  pipeline: PipelineRef,
): Promise<Checked<Identity>> {
  const token = bearerToken(request.headers);
  if (token === undefined) return refuse('MissingToken');
  if (!principals.isCiToken(token)) return principals.fromSso(token, now());
  const target: AuthorizationTarget = { pipeline, environment: '' };
  const ci = await principals.fromCi(token, target, now());
  return ci.ok ? verified(ci.value.identity) : ci;
}

/** The authenticated principal, and for a CI job its policies' verdict per environment. */
export function bearerCaller(
  request: FastifyRequest,
  principals: Principals,
  now: () => number,
): HaltCaller {
  const principal = callerOf(request).principal;
  if (principal === undefined) throw new GatewayError('Unauthenticated');
  const token = bearerToken(request.headers) ?? '';
  return {
    principal,
    ciAllowed: async (pipeline, environment) => {
      // No CI policy covers a whole Pipeline: a CI job halts one environment at a time.
      if (environment === undefined || principal.kind !== 'ci') return false;
      const ci = await principals.fromCi(token, { pipeline, environment }, now());
      return ci.ok && ci.value.allowed;
    },
  };
}

/** Throws the registry's InvalidBody when the request failed its schema. */
export function checkValid(request: FastifyRequest): void {
  if (request.validationError === undefined) return;
  const { validation } = request.validationError as { validation?: FastifySchemaValidationError[] };
  throw new GatewayError('InvalidBody', validationMessage(validation));
}

/** The recorded (or lifted) halt, or the documented error of a refusal; never a 5xx. */
export function haltAnswer(result: HaltResult): { halt: HaltRecord } {
  if (result.ok) return { halt: result.halt };
  switch (result.refusal) {
    case 'Expired':
      throw new GatewayError('InvalidBody', 'Invalid body: /expiresAt must be in the future.');
    case 'Full':
      throw new GatewayError('RateLimited', 'The Pipeline holds the most halts it may.', {
        retryAfterSeconds: 60,
      });
    case 'Contended':
      throw new GatewayError('Contended', undefined, { retryAfterSeconds: 1 });
    default:
      throw new GatewayError(result.refusal);
  }
}
