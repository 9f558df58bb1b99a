/**
 * One pull request for a release train's members that share a repository and base branch
 * (docs/pull-requests.md, "Release trains"): its branch is named for the train, the environment
 * and the combination's digest, so every member's attempt, on any replica, pushes the same change
 * to the same branch and finds the same open request; its commit sets every member's marked
 * values at once.
 */
import type { SharedPullRequest } from '../../../evaluate/decisions.js';
import type { PullRequestText } from '../../../forge/forge-model.js';
import { markerFor } from './markers.js';

/** How many hex digits of the combination's digest the branch name carries. */
const DIGEST_DIGITS = 12;

function digestHex(digest: string): string {
  return digest.replace(/^sha256:/, '').slice(0, DIGEST_DIGITS);
}

/** `promotion-train-<namespace>-<train>-<environment>-<12 hex digits of the digest>`. */
export function trainBranch(shared: SharedPullRequest, environment: string): string {
  const [namespace = '', train = ''] = shared.train.split('/');
  return `promotion-train-${namespace}-${train}-${environment}-${digestHex(shared.digest)}`;
}

/** The markers of the other members in the request, each with its release revision. */
export function otherMarkers(
  shared: SharedPullRequest,
  namespace: string,
  member: string,
  environment: string,
): { marker: string; revision: string }[] {
  return Object.entries(shared.members)
    .filter(([name]) => name !== member)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, revision]) => ({ marker: markerFor(namespace, name, environment), revision }));
}

/** The request's title (also its commit's message) and body: the train, its digest, each member. */
export function trainPullRequestText(
  shared: SharedPullRequest,
  environment: string,
): PullRequestText {
  const names = Object.keys(shared.members).sort();
  const [namespace = ''] = shared.train.split('/');
  const lines = names.map((n) => `- ${namespace}/${n}: ${shared.members[n] ?? ''}`);
  return {
    title: `Promote train ${shared.train} in ${environment} (${digestHex(shared.digest)})`,
    body: [
      `Sets the values marked for the members of train ${shared.train} in ${environment}, the combination ${shared.digest}:`,
      '',
      ...lines,
      '',
      'Merging it promotes every member listed.',
    ].join('\n'),
  };
}
