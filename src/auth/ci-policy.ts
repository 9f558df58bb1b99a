/**
 * CI policies: which CI token may authorize which promotions. A policy names an issuer and
 * the claims a token must carry (exact, or a glob where `*` matches any run of characters),
 * and the pipelines and environments its principal `ci:<policy-name>` may authorize.
 */
import type { CiPolicyConfig } from '../config/gateway-config.js';
import type { PipelineRef } from '../pipeline/id.js';
import { claimText } from './oidc.js';

const compiled = new Map<string, RegExp>();

/** Whether `text` matches `pattern`, where `*` matches any run of characters. */
export function globMatches(pattern: string, text: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    regex = new RegExp(`^${body}$`, 's');
    compiled.set(pattern, regex);
  }
  return regex.test(text);
}

/** Whether every claim the policy names is present in `claims` and matches. */
export function claimsMatch(policy: CiPolicyConfig, claims: Record<string, unknown>): boolean {
  return Object.entries(policy.claims).every(([name, pattern]) => {
    const value = Object.hasOwn(claims, name) ? claimText(claims[name]) : undefined;
    return value !== undefined && globMatches(pattern, value);
  });
}

/** Whether a `namespace/name`, `namespace/*` or `*` pattern covers the Pipeline. */
export function pipelinePatternCovers(pattern: string, ref: PipelineRef): boolean {
  return (
    pattern === '*' ||
    pattern === `${ref.namespace}/*` ||
    pattern === `${ref.namespace}/${ref.name}`
  );
}

/**
 * The policies of `issuer` whose claims the token satisfies, in configuration order: the
 * principal is the first one's that also covers the pipeline and environment asked for.
 */
export function matchingPolicies(
  policies: readonly CiPolicyConfig[],
  issuer: string,
  claims: Record<string, unknown>,
): CiPolicyConfig[] {
  return policies.filter((p) => p.issuer === issuer && claimsMatch(p, claims));
}

/** Whether `policy` lets its principal authorize `environment` of the Pipeline. */
export function policyCovers(
  policy: CiPolicyConfig,
  ref: PipelineRef,
  environment: string,
): boolean {
  return (
    policy.pipelines.some((p) => pipelinePatternCovers(p, ref)) &&
    policy.environments.includes(environment)
  );
}
