/**
 * The pull-request strategy's production ports: isomorphic-git over fetch for Git, the REST
 * client for the forge, weave's request text, with the operator's time limits.
 */
import type { FetchLike } from '../webhook.js';
import { forgeClient, pullRequestText } from './forge-client.js';
import { gitPusher } from './git-push.js';
import { currentState } from './refresh.js';
import type { PullRequestPorts } from './strategy.js';
import type { PullRequestRefreshDeps } from './state-refresher.js';

/** What the production ports are built from; `fetch` is the forge API's (tests), Git keeps its own. */
export type PullRequestPortsOptions = Pick<PullRequestPorts, 'settings' | 'readSecret' | 'now'> & {
  fetch?: FetchLike | undefined;
};

/** The ports the strategy and the status refresher share. */
export function pullRequestPorts(options: PullRequestPortsOptions): PullRequestPorts {
  const { settings, readSecret, now } = options;
  return {
    readSecret,
    settings,
    now,
    pusher: gitPusher({ timeoutMs: settings.gitTimeoutMs, now }),
    forge: (repository, credentials) =>
      forgeClient(repository, credentials, {
        timeoutMs: settings.apiTimeoutMs,
        now,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      }),
    text: pullRequestText,
  };
}

/** The refresher's forge query over the same ports. */
export function pullRequestState(ports: PullRequestPorts): PullRequestRefreshDeps['state'] {
  return (spec, namespace, url) => currentState(spec, namespace, url, ports);
}
