/**
 * forge-sim: a simulated GitHub or GitLab on loopback (Git smart HTTP over real repositories and
 * the REST subset pull-request promotions use) for tests and the demo. See its README.md.
 */
export { startForge } from './forge.js';
export type { ForgeOptions } from './forge.js';
export { ForgeHandle } from './handle.js';
export type {
  CheckRunInfo,
  CommitStatusInfo,
  MergeRequestOptions,
  PullRequestInfo,
  RepoInfo,
} from './handle.js';
export type { ForgeKind } from './tokens.js';
export { DEFAULT_SCOPES } from './tokens.js';
export type { CommitInfo } from './repos.js';
export type { MergeMethod } from './pulls.js';
// The whole fault vocabulary, the controller's own types included: `forge.faults` is one.
export type * from './faults.js';
export type { RequestFilter, RequestRecord, RequestSnapshot } from './accounting.js';
export { gitAuth } from './git-auth.js';
export { runForge, FORGE_USAGE } from './run-forge.js';
