/**
 * The train approval door (docs/api.md, "Approving a release train"):
 *   POST /v1/trains/{ns}/{name}/environments/{env}/approvals
 * a person's signed train approval statement (application/jose, `promotion-train-approval+jwt`)
 * or SSO bearer token with `{combinationDigest, decision, comment?}`. It authenticates first (no
 * cluster or Secret is read for a stranger), then hands the approval to TrainApprovals, which
 * records it on every member the combination waits for, or refuses it whole.
 */
import type { FastifyPluginCallback } from 'fastify';
import type { Static } from 'typebox';
import { bearerToken } from '../auth/authenticate.js';
import type { Principals } from '../auth/principals.js';
import { factText, refuse, withFacts, type Checked } from '../auth/refusal.js';
import type { Identity, TrainApprovalClaim } from '../auth/identity.js';
import type { TrainTarget } from '../auth/train-statement.js';
import type { TrainApprovalResult, TrainApprovals } from '../approvals/train-approvals.js';
import { PLAIN_TEXT_RULE, unsafeCharacterOf } from '../text/text.js';
import { callerOf } from './authenticated.js';
import { checkValid } from './halt-routes.js';
import { jsonBodyOf } from './body.js';
import { GatewayError } from './http-errors.js';
import { SchemaRefs } from './route-schemas.js';
import type { TrainApprovalBodySchema } from '../shapes/authorization.js';
import type { EnvironmentParamsSchema } from '../shapes/routes.js';

/** What the train approval route needs. */
export interface TrainApprovalRouteOptions {
  principals: Principals;
  trainApprovals: TrainApprovals;
  now: () => number;
}

type EnvParams = Static<typeof EnvironmentParamsSchema>;
type TrainApprovalBody = Static<typeof TrainApprovalBodySchema>;
type Scope = Parameters<FastifyPluginCallback>[0];

function targetOf(params: EnvParams): TrainTarget {
  return { train: { namespace: params.namespace, name: params.name }, environment: params.env };
}

/** A refusal with the train and environment of the URL added to its facts. */
function atTarget(checked: Checked<Identity>, target: TrainTarget): Checked<Identity> {
  if (checked.ok) return checked;
  const { namespace, name } = target.train;
  return withFacts(checked, {
    train: factText(`${namespace}/${name}`),
    environment: factText(target.environment),
  });
}

/** Registers the door; needs installAuthentication on its scope and the jose body parser. */
export function registerTrainApprovals(app: Scope, options: TrainApprovalRouteOptions): void {
  const { principals, trainApprovals, now } = options;
  app.post<{ Params: EnvParams; Body: TrainApprovalBody | string }>(
    '/v1/trains/:namespace/:name/environments/:env/approvals',
    {
      schema: {
        params: { $ref: SchemaRefs.environmentParams },
        body: {
          content: {
            'application/json': { schema: { $ref: SchemaRefs.trainApprovalBody } },
            'application/jose': { schema: { type: 'string' } },
          },
        },
      },
      attachValidation: true,
      config: {
        acceptsJose: true,
        door: 'approval',
        authenticate: async (request) => {
          const target = targetOf(request.params as EnvParams);
          if (typeof request.body === 'string')
            return atTarget(
              await principals.fromTrainStatement(request.body, target, now()),
              target,
            );
          const token = bearerToken(request.headers);
          if (token === undefined) return atTarget(refuse('MissingToken'), target);
          return atTarget(await principals.fromSso(token, now()), target);
        },
      },
      handler: async (request, reply) => {
        const identity = callerOf(request);
        checkValid(request);
        if (identity.principal === undefined) throw new GatewayError('Unauthenticated');
        const claim = checkedClaim(identity.trainClaim ?? claimOf(request.body));
        const { train, environment } = targetOf(request.params);
        const result = await trainApprovals.submit(train, environment, identity.principal, claim);
        return reply.code(202).send(answerOf(result));
      },
    },
  );
}

/** The SSO door's claim: the validated JSON body. */
function claimOf(sent: TrainApprovalBody | string | undefined): TrainApprovalClaim {
  if (typeof sent === 'string') throw new GatewayError('Unauthenticated');
  const body = jsonBodyOf(sent);
  return {
    combinationDigest: body.combinationDigest,
    decision: body.decision,
    ...(body.comment === undefined ? {} : { comment: body.comment }),
  };
}

/** A comment with a control or invisible formatting character is refused (400), as elsewhere. */
function checkedClaim(claim: TrainApprovalClaim): TrainApprovalClaim {
  const unsafe = claim.comment === undefined ? undefined : unsafeCharacterOf(claim.comment);
  if (unsafe !== undefined)
    throw new GatewayError('InvalidBody', `Invalid body: comment ${PLAIN_TEXT_RULE} (${unsafe}).`);
  return claim;
}

/** The answer, or the registered error of a refusal: never a 5xx for any input. */
function answerOf(result: TrainApprovalResult) {
  if (result.ok) return result.answer;
  const { refusal } = result;
  switch (refusal.reason) {
    case 'CombinationChanged':
    case 'NotWaiting':
    case 'PreviewChanged':
      throw new GatewayError(refusal.reason, refusal.detail);
    case 'Forbidden':
      throw new GatewayError('Forbidden', refusal.detail);
    case 'Full':
      throw new GatewayError('RateLimited', undefined, { retryAfterSeconds: 60 });
    case 'Contended':
      throw new GatewayError('Contended', undefined, { retryAfterSeconds: 1 });
    default:
      throw new GatewayError(refusal.reason);
  }
}
