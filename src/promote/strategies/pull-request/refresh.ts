/**
 * Keeping `status.environments[env].promotion.pullRequest.state` true: an open request is read
 * again from its forge (merged, closed or still open). Reads are spaced per request by the
 * configured refresh interval, so events and resync passes do not turn into forge traffic.
 */
import type {
  PipelineSpec,
  PromotionRecord,
  PullRequestStrategySpec,
} from '../../../pipeline/pipeline-resource.js';
import { strategySpecFor } from '../select.js';
import type { ForgeFailure } from '../../../forge/forge-answers.js';
import { resolveRepository, type PullRequestPorts } from './pull-request-strategy.js';
import type { PullRequestRef } from '../../../forge/forge-model.js';

/** GitHub's `.../pull/12` and GitLab's `.../-/merge_requests/12`: the number ends the path. */
export function requestNumberOf(url: string): number | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const match = /\/(?:pull|merge_requests)\/(\d+)\/?$/.exec(path);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** The environments of `spec` whose latest promotion left a request that is still open. */
export function openRequests(
  spec: PipelineSpec,
  environments: Readonly<Record<string, { promotion?: PromotionRecord } | undefined>>,
): { environment: string; spec: PullRequestStrategySpec; record: PromotionRecord }[] {
  return spec.environments.flatMap((env) => {
    const record = environments[env.name]?.promotion;
    const strategy = strategySpecFor(spec, env.name)?.['pull-request'];
    if (record?.pullRequest?.state !== 'open' || strategy === undefined) return [];
    return [{ environment: env.name, spec: strategy, record }];
  });
}

/** The request's state as its forge tells it now, or why it could not be read. */
export async function currentState(
  spec: PullRequestStrategySpec,
  namespace: string,
  url: string,
  ports: Pick<PullRequestPorts, 'readSecret' | 'forge' | 'settings'>,
): Promise<PullRequestRef['state'] | ForgeFailure> {
  const number = requestNumberOf(url);
  if (number === undefined) {
    return {
      reason: 'Invalid',
      message: 'the recorded pull request URL names no number',
      retryable: false,
    };
  }
  const resolved = await resolveRepository(spec, namespace, ports);
  if ('reason' in resolved) return resolved;
  const forge = ports.forge(resolved.repository, resolved.credentials);
  if ('reason' in forge) return forge;
  const answer = await forge.get(number);
  return answer.ok ? answer.value.state : answer.failure;
}

/** The record once its request reached `state`: a closed one says it will not be reopened. */
export function withRequestState(
  record: PromotionRecord,
  state: PullRequestRef['state'],
): PromotionRecord {
  const url = record.pullRequest?.url ?? '';
  const message =
    state === 'merged'
      ? `pull request ${url} was merged; waiting for the rollout of ${record.revision}`
      : state === 'closed'
        ? `pull request ${url} was closed without merging: ${record.revision} is not proposed again; the next revision opens a new one`
        : record.message;
  return {
    ...record,
    pullRequest: { url, state },
    ...(message === undefined ? {} : { message }),
  };
}
