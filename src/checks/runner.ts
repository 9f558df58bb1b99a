/** Runs one resolved check of any kind: what the CheckBook is built with in production. */
import type { CommitStatusDeps } from './commit-status.js';
import { runCommitStatusCheck } from './commit-status.js';
import type { HttpCheckDeps } from './http-check.js';
import { runHttpCheck } from './http-check.js';
import type { CheckOutcome, ResolvedCheck } from './resolve.js';

/** Runs `check` for `revision` of a Pipeline in `namespace`; never throws. */
export type CheckRunner = (
  check: ResolvedCheck,
  namespace: string,
  revision: string,
) => Promise<CheckOutcome>;

/** The runner over real HTTP, the management cluster's Secrets and the operator's policies. */
export function checkRunner(deps: HttpCheckDeps & CommitStatusDeps): CheckRunner {
  return (check, namespace, revision) => {
    switch (check.kind) {
      case 'http':
        return runHttpCheck(check, namespace, revision, deps);
      case 'commitStatus':
        return runCommitStatusCheck(check, namespace, revision, deps);
      case 'unusable':
        return Promise.resolve({ state: 'Unknown', message: `the check ${check.message}` });
    }
  };
}
