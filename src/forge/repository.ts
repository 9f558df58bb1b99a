/**
 * Whether a Pipeline's pull-request spec names a repository the gateway may talk to. The
 * gateway sends the Pipeline's token wherever `url` points, so the operator's policy (allowed
 * hosts, https only) is checked before any Secret is read or any request is made.
 */
import type { PullRequestSettings } from '../config/gateway-config.js';
import type { PullRequestStrategySpec } from '../pipeline/pipeline-resource.js';
import type { ForgeFailure } from './forge-answers.js';
import type { RepositoryRef } from './forge-model.js';

/** The repository to use, or a non-retryable failure saying what in the spec to change. */
export function checkRepository(
  spec: PullRequestStrategySpec,
  settings: PullRequestSettings,
): RepositoryRef | ForgeFailure {
  if (spec.type !== 'github' && spec.type !== 'gitlab') {
    return refuse(
      'StrategyNotSupported',
      `pull requests on ${spec.type} are not supported; use github or gitlab`,
    );
  }
  const url = repositoryUrl(spec.url);
  if (typeof url === 'string') return refuse('Invalid', `the pull-request url ${url}`);
  if (url.protocol !== 'https:' && !settings.allowPlainHttp) {
    return refuse(
      'RepositoryNotAllowed',
      `the pull-request url must use https (got ${url.protocol})`,
    );
  }
  if (settings.allowedHosts.length > 0 && !settings.allowedHosts.includes(url.host)) {
    return refuse(
      'RepositoryNotAllowed',
      `host ${url.host} is not among the gateway's allowed pull-request hosts`,
    );
  }
  if (spec.baseBranch.trim() === '')
    return refuse('Invalid', 'the pull-request baseBranch is empty');
  return { kind: spec.type, url: spec.url, baseBranch: spec.baseBranch };
}

/**
 * `text` as a repository URL, or what is wrong with it (a phrase to follow "the URL"): http(s)
 * only, and no credentials, query or fragment, which would be logged with it and belong in the
 * Secret. The Git side, the forge client and the policy check all read URLs through this.
 */
export function repositoryUrl(text: string): URL | string {
  if (!URL.canParse(text)) return 'is not a URL (SSH remotes are not supported: use https)';
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be http or https';
  if (url.username !== '' || url.password !== '')
    return 'must not hold credentials: put them in the Secret';
  if (url.search !== '' || url.hash !== '') return 'must not have a query or a fragment';
  return url;
}

function refuse(reason: ForgeFailure['reason'], message: string): ForgeFailure {
  return { reason, message, retryable: false };
}
