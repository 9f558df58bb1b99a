/**
 * Whether a Pipeline's pull-request spec names a repository the gateway may talk to. The
 * gateway sends the Pipeline's token wherever `url` points, so the operator's policy (allowed
 * hosts, https only) is checked before any Secret is read or any request is made.
 */
import type { PullRequestSettings } from '../../../config/types.js';
import type { PullRequestStrategySpec } from '../../../pipeline/types.js';
import type { ForgeFailure } from './forge-answers.js';
import type { RepositoryRef } from './types.js';

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
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    return refuse('Invalid', 'the pull-request url is not a URL');
  }
  const plainAllowed = settings.allowPlainHttp && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !plainAllowed) {
    return refuse(
      'RepositoryNotAllowed',
      `the pull-request url must use https (got ${url.protocol})`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials in a URL end up in logs and in Git's remote config: they belong in the Secret.
    return refuse('Invalid', 'the pull-request url must not carry credentials; use the Secret');
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

function refuse(reason: ForgeFailure['reason'], message: string): ForgeFailure {
  return { reason, message, retryable: false };
}
