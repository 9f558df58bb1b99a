/**
 * The operator's sharding (config `sharding`): which Pipelines this gateway serves, and the
 * resync Lease of its shard. Each shard is its own Deployment with its own Lease, so the
 * replicas of one shard agree on one periodic resync between them, and shards never wait on
 * each other's Lease (docs/operations.md, Sharding).
 */
import type { GatewayConfig } from './gateway-config.js';
import type { CheckedInput, ShardingInput } from './input.js';
import { parseSelectorText, selectorText } from '../labels/label-selector.js';
import { problem } from './schema.js';

/** The longest name a Lease (a DNS subdomain) may have. */
const MAX_LEASE_NAME = 253;

/**
 * The resync Lease's name: leaderElection.name, with `-<shard name>` after it when sharded, so
 * two shards configured with the same base name still hold two Leases.
 */
export function leaseName(input: CheckedInput): string {
  const { name } = input.leaderElection;
  return input.sharding === undefined ? name : `${name}-${input.sharding.name}`;
}

/**
 * The shard with its selector in canonical form; a selector that does not parse, or a Lease
 * name made too long, is a problem pushed onto `problems` naming its field.
 */
export function buildSharding(
  input: ShardingInput,
  lease: string,
  problems: string[],
): GatewayConfig['sharding'] {
  if (lease.length > MAX_LEASE_NAME)
    problems.push(
      problem(
        '/sharding/name',
        `makes the Lease name ${String(lease.length)} characters long (at most ${String(MAX_LEASE_NAME)} with leaderElection.name)`,
      ),
    );
  const parsed = parseSelectorText(input.pipelineSelector);
  if (!parsed.ok) {
    problems.push(problem('/sharding/pipelineSelector', parsed.problem));
    return { name: input.name, pipelineSelector: input.pipelineSelector };
  }
  return { name: input.name, pipelineSelector: selectorText(parsed.selector) };
}
