/**
 * One run of a commit-status check: the revision's commit (commit-ref.ts), the repository
 * admitted by the same operator policy as pull-request promotions (`promotion.pullRequest`:
 * allowed hosts, https), its token from the Secret the spec names, then the forge's statuses
 * (forge-statuses.ts) through the pull-request strategy's REST client. Every failure to read is
 * Unknown, with the client's secret-free message.
 */
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import type { PullRequestSettings } from '../config/gateway-config.js';
import { readCredentials } from '../forge/forge-credentials.js';
import type { ForgeFailure } from '../forge/forge-answers.js';
import { repositoryApi } from '../forge/forge-client.js';
import { forgeCall, forgeName } from '../forge/forge-http.js';
import { githubDialect } from '../forge/github.js';
import { gitlabDialect } from '../forge/gitlab.js';
import { repositoryUrl } from '../forge/repository.js';
import type { FetchLike } from '../outbound/fetch-like.js';
import { commitRefOf, shownRef } from '../outbound/commit-ref.js';
import { githubStatuses, gitlabStatuses, verdict, type StatusDialect } from './forge-statuses.js';
import type { CheckOutcome, CommitStatusCheck } from './resolve.js';

/** What a commit-status run needs besides the check. */
export interface CommitStatusDeps {
  fetch: FetchLike;
  readSecret: SecretKeyReader;
  /** The pull-request strategy's policy: which forge hosts the gateway may send tokens to. */
  settings: Pick<PullRequestSettings, 'allowedHosts' | 'allowPlainHttp'>;
  now: () => number;
}

/** Runs `check` for `revision` of a Pipeline in `namespace`. Never throws. */
export async function runCommitStatusCheck(
  check: CommitStatusCheck,
  namespace: string,
  revision: string,
  deps: CommitStatusDeps,
): Promise<CheckOutcome> {
  const ref = commitRefOf(revision, check.ref);
  if ('problem' in ref) return unknown(ref.problem);
  const { type, url, secretRef } = check.repository;
  if (type !== 'github' && type !== 'gitlab')
    return unknown(`commit statuses on ${type} are not supported; use github or gitlab`);
  const refused = refusal(url, deps.settings);
  if (refused !== undefined) return unknown(refused);
  const api = repositoryApi({ kind: type, url, baseBranch: '' });
  if (!api.ok) return unknown(api.failure.message);
  const credentials = await readCredentials(deps.readSecret, namespace, secretRef);
  if ('reason' in credentials) return unknown(credentials.message);
  if (!/^[\x21-\x7e]+$/.test(credentials.token))
    return unknown(
      `Secret ${namespace}/${secretRef}'s token is empty or holds spaces or line breaks`,
    );
  const { fullPath } = api.value;
  const [owner = '', repo = ''] = fullPath.split('/');
  const dialect: StatusDialect =
    type === 'github' ? githubStatuses(owner, repo) : gitlabStatuses(fullPath);
  const headers =
    type === 'github'
      ? githubDialect(owner, repo, '').headers(credentials.token)
      : gitlabDialect(fullPath, '').headers(credentials.token);
  const call = forgeCall({
    kind: type,
    apiUrl: api.value.apiUrl,
    headers,
    fetch: deps.fetch,
    now: deps.now,
    timeoutMs: check.timeoutMs,
  });
  const shown = shownRef(ref.ref);
  const found = await dialect.read(call, ref.ref, shown);
  if ('reason' in found) return unknown(failureText(type, found, shown));
  return verdict(found, check.contexts, shown);
}

/** Why the operator's policy refuses `url`, or undefined when it admits it. */
function refusal(
  url: string,
  settings: Pick<PullRequestSettings, 'allowedHosts' | 'allowPlainHttp'>,
): string | undefined {
  const parsed = repositoryUrl(url);
  if (typeof parsed === 'string') return `the repository URL ${parsed}`;
  if (parsed.protocol !== 'https:' && !settings.allowPlainHttp)
    return `the repository URL must use https (got ${parsed.protocol})`;
  if (settings.allowedHosts.length > 0 && !settings.allowedHosts.includes(parsed.host))
    return `host ${parsed.host} is not among the gateway's allowed pull-request hosts`;
  return undefined;
}

/** A forge failure as the check explains it; a 404 here most likely means no such commit. */
function failureText(kind: 'github' | 'gitlab', failure: ForgeFailure, shown: string): string {
  if (failure.reason === 'NotFound')
    return `${forgeName(kind)} found no commit ${shown} (or the token cannot see the repository)`;
  return failure.message;
}

function unknown(message: string): CheckOutcome {
  return { state: 'Unknown', message };
}
