/**
 * The authorization doors:
 *   POST /v1/pipelines/{ns}/{name}/environments/{env}/approvals   a person: a signed statement
 *        (application/jose) or an SSO bearer token with `{revision, decision, comment}`;
 *   POST /v1/pipelines/{ns}/{name}/environments/{env}/promotions  a CI job: its OIDC token
 *        with `{revision}` (or `{revision, decision: "break-glass", comment}`);
 *   POST /approval/{ns}/{name}/{env}/{revision}                   weave's legacy approval
 *        (HMAC of an empty body with the Pipeline's hmac-key), only when configured;
 *   POST /v1/trains/{ns}/{name}/environments/{env}/approvals      a person's approval of a
 *        release train's combination (train-approval-routes.ts).
 * Each authenticates first (no cluster or Secret is read for a stranger), then hands the
 * authorization to the Authorizer, which decides and records.
 */
import type { FastifyPluginCallback, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import type { Static } from 'typebox';
import { bearerToken } from '../auth/authenticate.js';
import type { LegacyKeyResolver } from '../auth/legacy-keys.js';
import type { AuthorizationTarget, Principals } from '../auth/principals.js';
import type { AuthorizationClaim, Identity } from '../auth/identity.js';
import { factText, refuse, verified, withFacts, type Checked } from '../auth/refusal.js';
import type { AuthorizationResult, Authorizer } from '../approvals/authorizer.js';
import { jsonBodyOf } from './body.js';
import { GatewayError } from './http-errors.js';
import { pipelineId } from '../pipeline/id.js';
import { PLAIN_TEXT_RULE, unsafeCharacterOf } from '../text/text.js';
import { callerOf } from './authenticated.js';
import type { Halter } from '../halts/halter.js';
import { registerFleetHalts, type FleetHaltOptions } from './fleet-halt-routes.js';
import { registerHalts } from './halt-routes.js';
import { registerRollbacks } from './rollback-routes.js';
import { registerTrainApprovals } from './train-approval-routes.js';
import type { TrainApprovals } from '../approvals/train-approvals.js';
import type { Rollbacks } from '../approvals/rollbacks.js';
import { legacyCaller } from './legacy.js';
import { SchemaRefs, validationMessage } from './route-schemas.js';
import type { ApprovalBodySchema, PromotionBodySchema } from '../shapes/authorization.js';
import type { EnvironmentParamsSchema, LegacyApprovalParamsSchema } from '../shapes/routes.js';

/** What the authorization routes need. */
export interface AuthorizationRouteOptions {
  principals: Principals;
  authorizer: Authorizer;
  legacyKeys: LegacyKeyResolver;
  /** Serve weave's legacy approval endpoint. */
  legacyEndpoint: boolean;
  now: () => number;
  /** Serves the stop-the-line doors (halt-routes.ts) when given. */
  halter?: Halter | undefined;
  /** Serves the rollback doors (rollback-routes.ts) when given. */
  rollbacks?: Rollbacks | undefined;
  /** Serves the train approval door (train-approval-routes.ts) when given. */
  trainApprovals?: TrainApprovals | undefined;
  /** Serves the doors across Pipelines and signed halts (fleet-halt-routes.ts) when given, with `halter`. */
  fleetHalts?: Pick<FleetHaltOptions, 'fleet' | 'statements'> | undefined;
}

type EnvParams = Static<typeof EnvironmentParamsSchema>;
type ApprovalBody = Static<typeof ApprovalBodySchema>;
type PromotionBody = Static<typeof PromotionBodySchema>;

function targetOf(params: EnvParams): AuthorizationTarget {
  return { pipeline: { namespace: params.namespace, name: params.name }, environment: params.env };
}

function checkBody(request: FastifyRequest): void {
  if (request.validationError === undefined) return;
  const { validation } = request.validationError as { validation?: FastifySchemaValidationError[] };
  throw new GatewayError('InvalidBody', validationMessage(validation));
}

/** A result with the pipeline and environment of the URL added to a refusal's facts. */
function atTarget<T>(checked: Checked<T>, target: AuthorizationTarget): Checked<T> {
  if (checked.ok) return checked;
  const { namespace, name } = target.pipeline;
  return withFacts(checked, {
    pipeline: factText(`${namespace}/${name}`),
    environment: factText(target.environment),
  });
}

/**
 * The principal and claim of an authenticated authorization request. A break-glass without a
 * reason, and a comment holding a control or invisible formatting character (the JSON body's
 * `plain-text` format), are refused here, whichever door they came through (a signed
 * statement's claims are checked by no body schema): 400, nothing recorded.
 */
function authorizationOf(identity: Identity, claim: AuthorizationClaim | undefined) {
  if (identity.principal === undefined || claim === undefined)
    throw new GatewayError('Unauthenticated');
  if (claim.decision === 'break-glass' && (claim.comment ?? '').trim() === '')
    throw new GatewayError('InvalidBody', 'A break-glass authorization needs a reason (comment).');
  const unsafe = claim.comment === undefined ? undefined : unsafeCharacterOf(claim.comment);
  if (unsafe !== undefined)
    throw new GatewayError('InvalidBody', `Invalid body: comment ${PLAIN_TEXT_RULE} (${unsafe}).`);
  return { principal: identity.principal, claim };
}

type Scope = Parameters<FastifyPluginCallback>[0];

/** Registers the doors; needs installAuthentication on its scope and the jose body parser. */
export const authorizationRoutes: FastifyPluginCallback<AuthorizationRouteOptions> = (
  app,
  options,
  done,
) => {
  registerApprovals(app, options);
  registerPromotions(app, options);
  if (options.legacyEndpoint) registerLegacyApproval(app, options);
  const { halter, rollbacks } = options;
  if (halter !== undefined) registerHalts(app, { ...options, halter });
  if (rollbacks !== undefined) registerRollbacks(app, { ...options, rollbacks });
  const { trainApprovals } = options;
  if (trainApprovals !== undefined) registerTrainApprovals(app, { ...options, trainApprovals });
  const { fleetHalts } = options;
  if (halter !== undefined && fleetHalts !== undefined)
    registerFleetHalts(app, { ...options, ...fleetHalts, halter });
  done();
};

/** People: a signed statement (application/jose) or an SSO token with a JSON body. */
function registerApprovals(app: Scope, { principals, authorizer, now }: AuthorizationRouteOptions) {
  app.post<{ Params: EnvParams; Body: ApprovalBody | string }>(
    '/v1/pipelines/:namespace/:name/environments/:env/approvals',
    {
      schema: {
        params: { $ref: SchemaRefs.environmentParams },
        body: {
          content: {
            'application/json': { schema: { $ref: SchemaRefs.approvalBody } },
            'application/jose': { schema: { type: 'string' } },
          },
        },
      },
      attachValidation: true,
      config: {
        acceptsJose: true,
        door: 'approval',
        authenticate: async (request) => {
          const params = request.params as EnvParams;
          const target = targetOf(params);
          if (typeof request.body === 'string')
            return atTarget(await principals.fromStatement(request.body, target, now()), target);
          const token = bearerToken(request.headers);
          if (token === undefined) return atTarget(refuse('MissingToken'), target);
          return atTarget(await principals.fromSso(token, now()), target);
        },
      },
      handler: async (request, reply) => {
        const identity = callerOf(request);
        checkBody(request);
        const { principal, claim } = authorizationOf(
          identity,
          identity.claim ?? approvalClaim(request.body),
        );
        const { pipeline, environment } = targetOf(request.params);
        return reply
          .code(202)
          .send(answerOf(await authorizer.submit(pipeline, environment, principal, claim)));
      },
    },
  );
}

/** CI jobs: their provider's OIDC token with `{revision}`. */
function registerPromotions(
  app: Scope,
  { principals, authorizer, now }: AuthorizationRouteOptions,
) {
  app.post<{ Params: EnvParams; Body: PromotionBody }>(
    '/v1/pipelines/:namespace/:name/environments/:env/promotions',
    {
      schema: {
        params: { $ref: SchemaRefs.environmentParams },
        body: { $ref: SchemaRefs.promotionBody },
      },
      attachValidation: true,
      config: {
        door: 'ci-promotion',
        authenticate: async (request) => {
          const token = bearerToken(request.headers);
          const target = targetOf(request.params as EnvParams);
          if (token === undefined) return atTarget(refuse('MissingToken'), target);
          const ci = await principals.fromCi(token, target, now());
          if (!ci.ok) return atTarget(ci, target);
          // A CI job whose policies do not cover this target is known but not allowed: 403.
          const pipelines = ci.value.allowed ? [pipelineId(target.pipeline)] : [];
          return verified({ ...ci.value.identity, scopes: { clusters: [], pipelines } });
        },
      },
      handler: async (request, reply) => {
        const identity = callerOf(request);
        if (identity.scopes.pipelines.length === 0) throw new GatewayError('Forbidden');
        checkBody(request);
        const { revision, decision, comment } = request.body;
        const claim: AuthorizationClaim = {
          revision,
          decision: decision ?? 'approve',
          ...(comment === undefined ? {} : { comment }),
        };
        const { principal } = authorizationOf(identity, claim);
        const { pipeline, environment } = targetOf(request.params);
        return reply
          .code(202)
          .send(answerOf(await authorizer.submit(pipeline, environment, principal, claim)));
      },
    },
  );
}

/** The SSO door's claim: the validated JSON body. */
function approvalClaim(sent: ApprovalBody | string | undefined): AuthorizationClaim | undefined {
  if (typeof sent === 'string') return undefined;
  const body = jsonBodyOf(sent);
  return {
    revision: body.revision,
    decision: body.decision,
    ...(body.comment === undefined ? {} : { comment: body.comment }),
    ...(body.previewDigest === undefined ? {} : { previewDigest: body.previewDigest }),
  };
}

type LegacyParams = Static<typeof LegacyApprovalParamsSchema>;

/**
 * Weave's `POST /approval/{ns}/{pipeline}/{env}/{revision}`, signed like Flux generic-hmac over
 * an empty body with the Pipeline's hmac-key. Weak by design (the signature does not cover the
 * URL, so one captured call approves any revision of any environment of that Pipeline), which
 * is why it is off by default and only ever approves the revision the gate waits for.
 */
function registerLegacyApproval(app: Scope, options: AuthorizationRouteOptions): void {
  app.post<{ Params: LegacyParams }>('/approval/:namespace/:name/:env/:revision', {
    schema: { params: { $ref: SchemaRefs.legacyApprovalParams } },
    attachValidation: true,
    config: {
      door: 'legacy-approval',
      authenticate: (request) => {
        const caller = legacyCaller(request, options.legacyKeys);
        if (!caller.ok) return Promise.resolve(caller);
        const principal = { name: 'legacy-hmac', kind: 'legacy' as const, groups: [] };
        return Promise.resolve(verified({ ...caller.value, principal }));
      },
    },
    handler: async (request, reply) => {
      const identity = callerOf(request);
      const claim: AuthorizationClaim = { revision: request.params.revision, decision: 'approve' };
      const { principal } = authorizationOf(identity, claim);
      const result = await options.authorizer.submit(
        targetOf(request.params).pipeline,
        request.params.env,
        principal,
        claim,
      );
      return reply.code(202).send(answerOf(result));
    },
  });
}

/**
 * The 202 body of a recorded (or re-check) authorization, or the registered error of a refusal:
 * a lost race is a 409 (NotWaiting, Replayed; Contended is worth a retry), never a 5xx.
 */
function answerOf(result: AuthorizationResult) {
  if (result.ok) return result.answer;
  const { refusal } = result;
  switch (refusal.reason) {
    case 'NotWaiting':
      return fail(new GatewayError('NotWaiting', refusal.detail));
    case 'Forbidden':
      return fail(new GatewayError('Forbidden', refusal.detail));
    case 'PreviewChanged':
      return fail(new GatewayError('PreviewChanged', refusal.detail));
    case 'Full':
      return fail(new GatewayError('RateLimited', undefined, { retryAfterSeconds: 60 }));
    case 'Contended':
      return fail(new GatewayError('Contended', undefined, { retryAfterSeconds: 1 }));
    default:
      return fail(new GatewayError(refusal.reason));
  }
}

function fail(error: GatewayError): never {
  throw error;
}
