/**
 * What an environment waits for while the one before it is not healthy at one revision. Pure.
 */
import { display } from '../text/text.js';
import type { EnvironmentDecision } from './decisions.js';
import { Reasons } from './reasons.js';
import { describeTargets, type summarise } from './target-states.js';

/** The Waiting decision of `name` while its upstream `upstreamName` is summarised as `source`. */
export function waitForUpstream(
  name: string,
  upstreamName: string,
  source: Exclude<ReturnType<typeof summarise>, { kind: 'Ready' }>,
): EnvironmentDecision {
  const base = { environment: name, outcome: 'Waiting' as const };
  switch (source.kind) {
    case 'NotReady':
    case 'Unknown':
      return {
        ...base,
        reason: Reasons.UpstreamNotReady,
        message: `${upstreamName} is not ready: ${describeTargets(source.targets)}; ${name} waits`,
      };
    case 'Mismatch':
      return {
        ...base,
        reason: Reasons.UpstreamRevisionMismatch,
        message:
          `${upstreamName} targets run different revisions ` +
          `(${source.revisions.map((r) => display(r)).join(', ')}); ${name} waits`,
      };
    case 'NoRevision':
    case 'NoTargets':
      return {
        ...base,
        reason: Reasons.UpstreamNoRevision,
        message: `${upstreamName} reports no revision to promote; ${name} waits`,
      };
  }
}
