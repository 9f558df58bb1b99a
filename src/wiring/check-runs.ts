/** The external checks' reader, wired: real HTTP, the management cluster's Secrets, the config. */
import type { SecretKeyReader } from '../auth/legacy-keys.js';
import { CheckBook } from '../checks/check-book.js';
import { checkRunner } from '../checks/runner.js';
import { AddressGuard } from '../egress/address-guard.js';
import { guardedFetch } from '../egress/guarded-fetch.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Runtime } from './runtime.js';

/** The CheckBook of one gateway; `onResult` re-checks a Pipeline whose awaited result arrived. */
export function checkBook(
  rt: Runtime,
  readSecret: SecretKeyReader,
  onResult: (id: PipelineId) => void,
): CheckBook {
  const { config, logger, now } = rt;
  const guard = new AddressGuard({
    allowedUrlPrefixes: config.checks.http.allowedUrlPrefixes,
    setting: 'checks.http.allowedUrlPrefixes',
    apiServers: rt.apiServers,
  });
  const run = checkRunner({
    // Commit-status checks call the forge, under promotion.pullRequest's own host rules.
    fetch: rt.fetch ?? ((url, init) => fetch(url, init)),
    httpFetch: rt.fetch ?? guardedFetch(guard),
    readSecret,
    guard,
    settings: config.promotion.pullRequest,
    now,
  });
  return new CheckBook({ run, now, maxConcurrent: config.checks.maxConcurrent, onResult, logger });
}
