/**
 * The pull-request strategy's production ports: isomorphic-git over fetch for Git, the REST
 * client for the forge, weave's request text, with the operator's time limits.
 */
import type { FetchLike } from '../../../outbound/fetch-like.js';
import { forgeClient, pullRequestText } from '../../../forge/forge-client.js';
import type { PromotionPusher } from '../../../forge/forge-model.js';
import type { GitReader } from './git-edits.js';
import type { GitPusherOptions } from './git-push.js';
import { currentState } from './refresh.js';
import type { PullRequestPorts } from './pull-request-strategy.js';
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
    pusher: gitOnFirstPush({ timeoutMs: settings.gitTimeoutMs, now }),
    forge: (repository, credentials, signal) =>
      forgeClient(repository, credentials, {
        timeoutMs: settings.apiTimeoutMs,
        now,
        ...(signal === undefined ? {} : { signal }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      }),
    text: pullRequestText,
  };
}

/**
 * The Git side, its module loaded on the first push. Why: isomorphic-git and memfs are the
 * bundle's largest libraries after the client library's, and a gateway without the pull-request
 * strategy never pushes; loaded at start-up they cost every gateway 2.7 MiB of RSS
 * (docs/adr/0012-esbuild-bundle-with-used-client-node-models.md). The bundle keeps the module
 * in a chunk of its own.
 */
export function gitOnFirstPush(options: GitPusherOptions): PromotionPusher {
  let pusher: Promise<PromotionPusher> | undefined;
  let reader: Promise<GitReader> | undefined;
  const read = () => (reader ??= import('./git-edits.js').then((git) => git.gitReader(options)));
  return {
    push: async (change) => {
      pusher ??= import('./git-push.js').then((git) => git.gitPusher(options));
      return (await pusher).push(change);
    },
    edits: async (change) => (await read()).edits(change),
    baseHead: async (change) => (await read()).baseHead(change),
  };
}

/** The refresher's forge query over the same ports. */
export function pullRequestState(ports: PullRequestPorts): PullRequestRefreshDeps['state'] {
  return (spec, namespace, url) => currentState(spec, namespace, url, ports);
}
