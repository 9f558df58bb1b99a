/**
 * A Pipeline's check as the reader runs it: defaults filled in, a commit-status check's
 * repository taken from the environment's pull-request strategy when it names none, and the key
 * its results are cached under (the Pipeline's namespace and everything that decides the answer,
 * so two Pipelines asking the same thing share one result and a changed spec never reuses one).
 */
import type { CheckState } from '../evaluate/decisions.js';
import type { CheckSpec, PipelineSpec } from '../pipeline/pipeline-resource.js';
import { strategySpecFor } from '../promote/strategies/select.js';

/** A run's verdict: the state and a secret-free sentence saying why. */
export interface CheckOutcome {
  state: CheckState;
  message: string;
}

/** Bounds every check has. */
interface Timing {
  timeoutMs: number;
  /** How long a result stays current. */
  cacheMs: number;
}

/** An HTTP check, resolved. */
export interface HttpCheck extends Timing {
  kind: 'http';
  url: string;
  status?: number;
  json?: { path: string; equals: string };
  /** The Secret's name in the Pipeline's namespace. */
  secretRef?: string;
}

/** A commit-status check, resolved. */
export interface CommitStatusCheck extends Timing {
  kind: 'commitStatus';
  repository: { type: string; url: string; secretRef: string };
  /** Empty: every status and check run reported must succeed. */
  contexts: string[];
  ref?: string;
}

/** A check the spec does not say enough about to run: always Unknown, with why. */
export interface UnusableCheck extends Timing {
  kind: 'unusable';
  message: string;
}

/** A check ready to run. */
export type ResolvedCheck = HttpCheck | CommitStatusCheck | UnusableCheck;

/** Defaults of `timeoutSeconds` and `cacheSeconds` (docs/policy.md). */
export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_CACHE_SECONDS = 60;

/** `check` of environment `environment` of `spec`, resolved. */
export function resolveCheck(
  spec: PipelineSpec,
  environment: string,
  check: CheckSpec,
): ResolvedCheck {
  const { http, commitStatus } = check;
  const timing = (given: { timeoutSeconds?: number; cacheSeconds?: number } | undefined) => ({
    timeoutMs: (given?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    cacheMs: (given?.cacheSeconds ?? DEFAULT_CACHE_SECONDS) * 1000,
  });
  if ((http === undefined) === (commitStatus === undefined)) {
    const message = 'names both or neither of http and commitStatus';
    return { kind: 'unusable', message, ...timing(undefined) };
  }
  if (http !== undefined) {
    const { status, json } = http.expect ?? {};
    return {
      kind: 'http',
      url: http.url,
      ...(status === undefined ? {} : { status }),
      ...(json === undefined ? {} : { json: { path: json.path, equals: json.equals } }),
      ...(http.secretRef === undefined ? {} : { secretRef: http.secretRef.name }),
      ...timing(http),
    };
  }
  const given = commitStatus?.repository ?? strategySpecFor(spec, environment)?.['pull-request'];
  if (given === undefined) {
    const message =
      'names no repository, and the environment has no pull-request strategy to take it from';
    return { kind: 'unusable', message, ...timing(commitStatus) };
  }
  return {
    kind: 'commitStatus',
    repository: { type: given.type, url: given.url, secretRef: given.secretRef.name },
    contexts: [...(commitStatus?.contexts ?? [])],
    ...(commitStatus?.ref === undefined ? {} : { ref: commitStatus.ref }),
    ...timing(commitStatus),
  };
}

/** The cache key of `check` for Pipelines in `namespace`: built in a fixed key order. */
export function checkKey(namespace: string, check: ResolvedCheck): string {
  return `${namespace}\n${JSON.stringify(check)}`;
}
