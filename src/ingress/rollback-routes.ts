/**
 * The rollback doors of one environment (docs/api.md, "Rollbacks"):
 *   POST   /v1/pipelines/{ns}/{name}/environments/{env}/rollbacks   `{revision?, reason}`: 202
 *   DELETE /v1/pipelines/{ns}/{name}/environments/{env}/holds/{rev} lifts the holds: 200
 * with a person's signed rollback statement (application/jose, `promotion-rollback+jwt`), SSO
 * bearer token, or a CI job's OIDC token (told apart by its issuer; it must be covered by a CI
 * policy for the environment). Each authenticates first; who may roll back is judged by
 * Rollbacks (src/approvals/rollbacks.ts) against the environment's rollback policy.
 */
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { bearerToken } from '../auth/authenticate.js';
import type { AuthorizationTarget, Principals } from '../auth/principals.js';
import { refuse, verified, type Checked } from '../auth/refusal.js';
import type { Identity, RollbackClaim } from '../auth/identity.js';
import type { RollbackResult, Rollbacks } from '../approvals/rollbacks.js';
import { PLAIN_TEXT_RULE, unsafeCharacterOf } from '../text/text.js';
import { callerOf } from './authenticated.js';
import { checkValid } from './halt-routes.js';
import { jsonBodyOf } from './body.js';
import { GatewayError } from './http-errors.js';
import { SchemaRefs } from './route-schemas.js';
import type { HoldParamsSchema, RollbackBodySchema } from '../shapes/authorization.js';
import type { EnvironmentParamsSchema } from '../shapes/routes.js';

/** What the rollback routes need. */
export interface RollbackRouteOptions {
  principals: Principals;
  rollbacks: Rollbacks;
  now: () => number;
}

type EnvParams = Static<typeof EnvironmentParamsSchema>;
type HoldParams = Static<typeof HoldParamsSchema>;
type RollbackBody = Static<typeof RollbackBodySchema>;
type Scope = Parameters<FastifyPluginCallback>[0];

function targetOf(params: EnvParams): AuthorizationTarget {
  return { pipeline: { namespace: params.namespace, name: params.name }, environment: params.env };
}

/**
 * A bearer token's identity: a CI job's when its issuer is a CI issuer (403 unless a CI policy
 * covers the target), else a person's SSO token.
 */
async function fromBearer(
  principals: Principals,
  request: FastifyRequest,
  target: AuthorizationTarget,
  now: number,
): Promise<Checked<Identity>> {
  const token = bearerToken(request.headers);
  if (token === undefined) return refuse('MissingToken');
  if (!principals.isCiToken(token)) return principals.fromSso(token, now);
  const ci = await principals.fromCi(token, target, now);
  if (!ci.ok) return ci;
  return verified({
    ...ci.value.identity,
    scopes: { clusters: [], pipelines: ci.value.allowed ? ['*'] : [] },
  });
}

/** Registers the two doors; needs installAuthentication on its scope and the jose parser. */
export function registerRollbacks(app: Scope, options: RollbackRouteOptions): void {
  const { principals, rollbacks, now } = options;
  app.post<{ Params: EnvParams; Body: RollbackBody | string }>(
    '/v1/pipelines/:namespace/:name/environments/:env/rollbacks',
    {
      schema: {
        params: { $ref: SchemaRefs.environmentParams },
        body: {
          content: {
            'application/json': { schema: { $ref: SchemaRefs.rollbackBody } },
            'application/jose': { schema: { type: 'string' } },
          },
        },
      },
      attachValidation: true,
      config: {
        acceptsJose: true,
        door: 'rollback',
        authenticate: (request) => {
          const target = targetOf(request.params as EnvParams);
          if (typeof request.body === 'string')
            return principals.fromRollbackStatement(request.body, target, now());
          return fromBearer(principals, request, target, now());
        },
      },
      handler: async (request, reply) => {
        const identity = callerOf(request);
        checkValid(request);
        const principal = allowedPrincipal(identity);
        const claim = identity.rollback ?? claimOf(request.body);
        const { pipeline, environment } = targetOf(request.params);
        const result = await rollbacks.request(pipeline, environment, principal, claim);
        return reply.code(202).send(answerOf(result));
      },
    },
  );
  app.delete<{ Params: HoldParams }>(
    '/v1/pipelines/:namespace/:name/environments/:env/holds/:revision',
    {
      schema: { params: { $ref: SchemaRefs.holdParams } },
      attachValidation: true,
      config: {
        door: 'rollback',
        authenticate: (request) =>
          fromBearer(principals, request, targetOf(request.params as EnvParams), now()),
      },
      handler: async (request, reply) => {
        const principal = allowedPrincipal(callerOf(request));
        checkValid(request);
        const { pipeline, environment } = targetOf(request.params);
        const result = await rollbacks.lift(
          pipeline,
          environment,
          request.params.revision,
          principal,
        );
        return reply.code(200).send(answerOf(result));
      },
    },
  );
}

/** The principal of an authenticated caller; a CI job no policy covers here is refused (403). */
function allowedPrincipal(identity: Identity) {
  if (identity.principal === undefined) throw new GatewayError('Unauthenticated');
  if (identity.kind === 'ci' && identity.scopes.pipelines.length === 0)
    throw new GatewayError('Forbidden');
  return identity.principal;
}

/** The JSON door's claim; a reason with a control character is refused as a statement's is. */
function claimOf(sent: RollbackBody | string | undefined): RollbackClaim {
  if (typeof sent === 'string') throw new GatewayError('Unauthenticated');
  const body = jsonBodyOf(sent);
  const unsafe = unsafeCharacterOf(body.reason);
  if (unsafe !== undefined)
    throw new GatewayError('InvalidBody', `Invalid body: reason ${PLAIN_TEXT_RULE} (${unsafe}).`);
  return {
    reason: body.reason,
    ...(body.revision === undefined ? {} : { revision: body.revision }),
  };
}

/** The answer, or the registered error of a refusal: never a 5xx for any input. */
function answerOf<A>(result: RollbackResult<A>): A {
  if (result.ok) return result.answer;
  const { reason, detail } = result.refusal;
  switch (reason) {
    case 'Full':
      throw new GatewayError('RateLimited', undefined, { retryAfterSeconds: 60 });
    case 'Contended':
      throw new GatewayError('Contended', undefined, { retryAfterSeconds: 1 });
    default:
      throw new GatewayError(reason, detail);
  }
}
