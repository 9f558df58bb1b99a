/**
 * The lines `status` prints under its table, from what the gateway keeps in the demo Pipeline's
 * status (its view answers decisions, not records): the pull request each environment's latest
 * promotion opened, the rollback an environment's latest record is, and the versions held, with
 * every environment each hold keeps them from.
 */
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { APP_NAME, APP_NAMESPACE, DEMO_ENVIRONMENTS } from './objects.js';
import type { DemoState } from './state.js';

/** What status.environments[env].promotion holds about a pull request or a rollback. */
interface PromotionStatus {
  revision?: string;
  phase?: string;
  succeeded?: boolean;
  pullRequest?: { url: string; state: string };
  rollback?: { from: string; by: string[]; reason: string; automatic?: boolean };
}

/** One of status.environments[env].holds. */
interface Hold {
  revision: string;
  reason: string;
  by: string;
  time: string;
  liftedAt?: string;
}

/** The part of one environment's status the lines are made of. */
interface EnvironmentStatus {
  promotion?: PromotionStatus;
  holds?: Hold[];
}

/**
 * The pull request, rollback and hold lines of the demo Pipeline, environments in promotion
 * order. Empty when the status cannot be read: the table above them still says what matters.
 */
export async function recordLines(state: DemoState): Promise<string> {
  const environments = (await pipelineStatus(state))?.environments ?? {};
  const stored = DEMO_ENVIRONMENTS.map((env) => [env, environments[env] ?? {}] as const);
  return [
    ...stored.map(([env, status]) => pullRequestLine(env, status.promotion)),
    ...stored.map(([env, status]) => rollbackLine(env, status.promotion)),
    ...stored.flatMap(([env, status]) => holdLines(env, status.holds ?? [])),
  ].join('');
}

function pullRequestLine(env: string, promotion: PromotionStatus | undefined): string {
  const pr = promotion?.pullRequest;
  if (pr === undefined) return '';
  return `pull request for ${env} (${promotion?.revision ?? '?'}): ${pr.url} (${pr.state})\n`;
}

/** The latest record of `env` when it is a rollback: from, to, how it went, who and why. */
function rollbackLine(env: string, promotion: PromotionStatus | undefined): string {
  const rollback = promotion?.rollback;
  if (promotion === undefined || rollback === undefined) return '';
  const phase = promotion.phase ?? (promotion.succeeded === true ? 'Succeeded' : 'Failed');
  const by = `by ${rollback.by.join(', ')}`;
  const who = rollback.automatic === true ? `automatic, ${by}` : by;
  const to = promotion.revision ?? '?';
  return `rollback of ${env} from ${rollback.from} to ${to} (${who}): ${phase}; ${rollback.reason}\n`;
}

/**
 * A line per hold of `env` in force: a RolledBack hold keeps the version from `env`, a
 * FailedVerification one from `env` and every environment after it (docs/policy.md, "The hold").
 */
function holdLines(env: string, holds: readonly Hold[]): string[] {
  return holds
    .filter((h) => h.liftedAt === undefined)
    .map((h) => {
      const order: readonly string[] = DEMO_ENVIRONMENTS;
      const held = h.reason === 'FailedVerification' ? order.slice(order.indexOf(env)) : [env];
      return `held: ${h.revision} for ${namesOf(held)} (${h.reason} in ${env} at ${h.time}, by ${h.by}): not taken there until a newer version arrives or the hold is lifted\n`;
    });
}

/** `a`, `a and b`, `a, b and c`. */
function namesOf(names: readonly string[]): string {
  return names.length < 2
    ? names.join('')
    : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/** The demo Pipeline's status, read with the demo's kubeconfig; undefined when unreadable. */
async function pipelineStatus(
  state: DemoState,
): Promise<{ environments?: Record<string, EnvironmentStatus> } | undefined> {
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(state.kubeconfig);
    kubeConfig.setCurrentContext('management');
    const pipeline = (await kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'pipelines.weave.works',
      version: 'v1alpha1',
      plural: 'pipelines',
      namespace: APP_NAMESPACE,
      name: APP_NAME,
    })) as { status?: { environments?: Record<string, EnvironmentStatus> } };
    return pipeline.status;
  } catch {
    return undefined;
  }
}
