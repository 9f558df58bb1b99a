/**
 * `merge`: the demo maintainer pressing the merge button on the gateway's promotion pull request
 * (through the forge's GitHub REST API, with their own token), from another terminal.
 */
import { UsageError } from 'promotion-gateway';
import { DemoError } from './args.js';
import type { RunningDemo } from './client.js';
import { APP_NAME, APP_NAMESPACE, PULL_REQUEST_ENVIRONMENT } from './objects.js';
import { notRunning } from './state.js';

/** The fields of GitHub's `pull-request-simple` the demo reads. */
interface PullSummary {
  number: number;
  title: string;
}

/** `merge --env E`: merges the open request promoting E; a DemoError when none is open. */
export async function merge(
  demo: RunningDemo,
  env: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  if (demo.state.hmacKeys[env] === undefined)
    throw new UsageError(
      `unknown environment ${env} (one of ${Object.keys(demo.state.hmacKeys).join(', ')})`,
    );
  if (env !== PULL_REQUEST_ENVIRONMENT)
    throw new DemoError(
      `${env} is not promoted through a pull request in the demo: only ${PULL_REQUEST_ENVIRONMENT} is, so there is nothing to merge for ${env}`,
    );
  const pull = await openRequest(demo, env);
  const { apiUrl, repo } = demo.state.forge;
  const url = `${apiUrl}/repos/${repo}/pulls/${String(pull.number)}/merge`;
  const body = JSON.stringify({ merge_method: 'merge' });
  const response = await forgeCall(demo, url, { method: 'PUT', body });
  const answer = (await response.json()) as { message?: string };
  if (!response.ok)
    throw new DemoError(
      `the forge did not merge pull request #${String(pull.number)}: ${String(response.status)} ${answer.message ?? ''}`.trimEnd(),
    );
  out.write(`merged pull request #${String(pull.number)} (${pull.title}): Flux applies it next\n`);
  return 0;
}

/** The open request on the gateway's promotion branch for `env` (weave's branch name). */
async function openRequest(demo: RunningDemo, env: string): Promise<PullSummary> {
  const { apiUrl, repo } = demo.state.forge;
  const owner = repo.split('/')[0] ?? '';
  const head = `${owner}:promotion-${APP_NAMESPACE}-${APP_NAME}-${env}`;
  const query = new URLSearchParams({ state: 'open', head });
  const response = await forgeCall(demo, `${apiUrl}/repos/${repo}/pulls?${query.toString()}`);
  if (!response.ok)
    throw new DemoError(`the forge answered ${String(response.status)} listing pull requests`);
  const [pull] = (await response.json()) as PullSummary[];
  if (pull === undefined)
    throw new DemoError(
      `no open pull request promotes ${APP_NAMESPACE}/${APP_NAME} in ${env} (the gateway opens one once a revision is approved for ${env})`,
    );
  return pull;
}

/** fetch with the maintainer's token; "no demo is running" when the forge does not answer. */
async function forgeCall(
  demo: RunningDemo,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  try {
    return await fetch(url, {
      ...init,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${demo.state.forge.token}`,
        'content-type': 'application/json',
      },
    });
  } catch {
    throw notRunning(demo.port);
  }
}
