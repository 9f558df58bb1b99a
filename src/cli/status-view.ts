/**
 * What `promotion-gateway status` prints, computed from Pipelines as the API server stores them
 * (the gateway's own status records, nothing read from the target clusters): a table with one
 * row per environment, as `flux get` prints one per object, one Pipeline in detail, or JSON.
 * Records are shown as stored, but never with a character that could drive the terminal or
 * reorder the line (text.ts) nor a URL's credentials (redact-url.ts). Pure.
 */
import { redactUrls } from '../text/redact-url.js';
import { display, escapeUnsafeJson, neutralize } from '../text/text.js';
import { policyLine } from './policy-line.js';
import { storedEvaluator, storedPolicyOf } from './status-policy.js';
import type {
  AuthorizationRecord,
  EnvironmentStatus,
  Pipeline,
  TargetStatusRecord,
} from '../pipeline/pipeline-resource.js';

/** One environment of one Pipeline, as a row. */
export interface EnvironmentRow {
  namespace: string;
  pipeline: string;
  environment: string;
  /** The revisions its targets run (one when they agree), or `-` before the first read. */
  revision: string;
  /** `n/m` targets ready. */
  ready: string;
  /** What happens next, in words: the decision, what it waits for. */
  state: string;
  /** The latest promotion's pull request, if it is open. */
  pullRequest: string;
  /** Its policy gates in a short line (policy-line.ts), when it has any. */
  policy?: string;
}

/**
 * The rows of `pipelines`, sorted by namespace and name, environments in spec order; `now`
 * (ms) is the reader's clock, which the policy gates' times are counted from.
 */
export function environmentRows(pipelines: readonly Pipeline[], now: number): EnvironmentRow[] {
  const evaluator = storedEvaluator(now);
  return [...pipelines].sort(byName).flatMap((p) => {
    const policy = storedPolicyOf(p, evaluator);
    return p.spec.environments.map((env) => {
      const stored = p.status?.environments?.[env.name];
      const targets = stored?.targets ?? [];
      const line = policyLine(policy?.[env.name], now);
      return {
        namespace: p.metadata.namespace,
        pipeline: p.metadata.name,
        environment: env.name,
        revision: revisionOf(targets),
        ready: `${String(targets.filter((t) => t.ready).length)}/${String(env.targets.length)}`,
        state: stateOf(stored),
        pullRequest: openRequest(stored),
        ...(line === '' ? {} : { policy: line }),
      };
    });
  });
}

const COLUMNS: readonly [keyof EnvironmentRow, string][] = [
  ['namespace', 'NAMESPACE'],
  ['pipeline', 'PIPELINE'],
  ['environment', 'ENVIRONMENT'],
  ['revision', 'REVISION'],
  ['ready', 'READY'],
  ['state', 'STATE'],
  ['policy', 'POLICY'],
  ['pullRequest', 'PULL REQUEST'],
];

/**
 * The rows as an aligned text table (kubectl's style: upper-case headers, two spaces). The
 * POLICY column is shown only when some environment has a policy gate.
 */
export function renderTable(rows: readonly EnvironmentRow[]): string {
  if (rows.length === 0) return 'No Pipelines found.\n';
  const policy = rows.some((r) => r.policy !== undefined);
  const columns = COLUMNS.filter(([k]) => policy || k !== 'policy');
  // Every cell neutralized: a field the records hold as stored (a principal, a link) may carry
  // a control or bidirectional character written before the doors refused them.
  const cells = [
    columns.map(([, header]) => header),
    ...rows.map((r) => columns.map(([k]) => neutralize(r[k] ?? ''))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

/**
 * One Pipeline in detail: its conditions, then each environment's targets, policy gates (at
 * `now`, ms), approvals and record.
 */
export function renderDetail(pipeline: Pipeline, now: number): string {
  const { namespace, name } = pipeline.metadata;
  const { appRef } = pipeline.spec;
  const lines = [`Pipeline ${namespace}/${name} (${appRef.kind} ${appRef.name})`];
  for (const c of pipeline.status?.conditions ?? []) {
    lines.push(`  ${c.type}: ${c.status} (${c.reason}) ${display(c.message, 300)}`);
  }
  const policy = storedPolicyOf(pipeline, storedEvaluator(now));
  for (const env of pipeline.spec.environments) {
    const stored = pipeline.status?.environments?.[env.name];
    lines.push('', `  ${env.name}: ${stateOf(stored)}`);
    env.targets.forEach((target, i) => {
      const where = `${target.clusterRef?.name ?? 'management'}/${target.namespace}`;
      lines.push(`    ${where}: ${targetLine(stored?.targets?.[i])}`);
    });
    const line = policyLine(policy?.[env.name], now);
    if (line !== '') lines.push(`    policy: ${line}`);
    lines.push(...soakLines(stored), ...holdLines(stored), ...gateLines(stored?.approvals ?? []));
    lines.push(...recordLines(stored));
  }
  // Each line neutralized, as the table's cells are: the records are shown as they are stored.
  return `${lines.map(neutralize).join('\n')}\n`;
}

/**
 * `status --json` at `now` (ms): each Pipeline's rows, policy gates and stored status, with unsafe
 * characters as `\uXXXX` escapes and URLs' credentials redacted (the same JSON otherwise).
 */
export function renderJson(pipelines: readonly Pipeline[], now: number): string {
  const rows = environmentRows(pipelines, now);
  const evaluator = storedEvaluator(now);
  const body = pipelines.map((p) => {
    const policy = storedPolicyOf(p, evaluator);
    return {
      namespace: p.metadata.namespace,
      name: p.metadata.name,
      environments: rows.filter(
        (r) => r.namespace === p.metadata.namespace && r.pipeline === p.metadata.name,
      ),
      ...(policy === undefined ? {} : { policy }),
      status: p.status ?? {},
    };
  });
  const json = JSON.stringify({ pipelines: body }, null, 2);
  return `${escapeUnsafeJson(redactUrls(json))}\n`;
}

function byName(a: Pipeline, b: Pipeline): number {
  const ka = `${a.metadata.namespace}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function revisionOf(targets: readonly TargetStatusRecord[]): string {
  const revisions = [...new Set(targets.map((t) => t.revision).filter((r) => r !== undefined))];
  return revisions.length === 0 ? '-' : revisions.map((r) => display(r, 64)).join(',');
}

/** What the environment waits for or did last, in words, from the records the gateway keeps. */
function stateOf(env: EnvironmentStatus | undefined): string {
  if (env === undefined) return 'not checked yet';
  if (env.waitingApproval !== undefined) {
    const approvals = (env.approvals ?? []).filter(
      (a) => a.revision === env.waitingApproval?.revision && a.decision === 'approve',
    );
    const by =
      approvals.length === 0 ? '' : `, approved by ${approvals.map((a) => a.principal).join(', ')}`;
    return `waiting for approval of ${display(env.waitingApproval.revision, 64)}${by}`;
  }
  if (env.drift !== undefined) {
    const { promoted, running, arrived } = env.drift;
    const runs =
      running.length === 0 ? 'no revision' : running.map((r) => display(r, 64)).join(',');
    const history = arrived ? 'ran it, then left it' : 'never ran it';
    return `drifted: runs ${runs}, not ${display(promoted, 64)} promoted there (${history})`;
  }
  const record = env.promotion;
  const unready = (env.targets ?? []).find((t) => !t.ready);
  if (unready !== undefined) return `not ready: ${display(unready.error ?? 'not ready', 120)}`;
  if (record === undefined) return 'up to date';
  const phase = record.phase ?? (record.succeeded ? 'Succeeded' : 'Failed');
  const attempt = record.attempt === undefined ? '' : ` (attempt ${String(record.attempt)})`;
  const what =
    record.rollback === undefined
      ? 'promotion'
      : `rollback from ${display(record.rollback.from, 64)} to`;
  return `${what} ${display(record.revision, 64)}: ${phase}${attempt}`;
}

function openRequest(env: EnvironmentStatus | undefined): string {
  const pr = env?.promotion?.pullRequest;
  return pr === undefined ? '' : `${redactUrls(pr.url)} (${pr.state})`;
}

function targetLine(record: TargetStatusRecord | undefined): string {
  if (record === undefined) return 'not verified yet';
  const revision = record.revision === undefined ? 'no revision' : display(record.revision, 64);
  const health = record.ready ? 'ready' : `not ready: ${display(record.error ?? '', 200)}`;
  const seen = record.observedTime === undefined ? '' : `, verified ${record.observedTime}`;
  return `${revision}, ${health}${seen}`;
}

/** Since when it has run its revision healthy, kept while the next environment soaks on it. */
function soakLines(env: EnvironmentStatus | undefined): string[] {
  const since = env?.healthySince;
  if (since === undefined) return [];
  return [`    healthy at ${display(since.revision, 64)} since ${display(since.time, 40)} (soak)`];
}

/** The revisions the environment does not take (rolled back, failed verification), not lifted. */
function holdLines(env: EnvironmentStatus | undefined): string[] {
  return (env?.holds ?? [])
    .filter((h) => h.liftedAt === undefined)
    .map(
      (h) =>
        `    held: ${display(h.revision, 64)} (${h.reason} by ${display(h.by, 64)} at ${h.time}; lift: DELETE .../holds/${display(h.revision, 64)})`,
    );
}

function gateLines(approvals: readonly AuthorizationRecord[]): string[] {
  return approvals.map((a) => {
    const id = a.jti === undefined ? '' : `, id ${a.jti}`;
    const signed = a.statement === undefined ? '' : ', signed statement kept';
    return `    ${a.decision} ${display(a.revision, 64)} by ${a.principal} (${a.kind}) at ${a.time}${id}${signed}`;
  });
}

function recordLines(env: EnvironmentStatus | undefined): string[] {
  const record = env?.promotion;
  if (record === undefined) return [];
  const lines = [
    `    last promotion: ${display(record.revision, 64)} ${record.phase ?? ''} at ${record.lastAttemptedTime}`.trimEnd(),
  ];
  if (record.phase === 'Claimed' && record.deadlineTime !== undefined) {
    lines.push(
      `      claimed by ${display(record.claimedBy ?? 'unknown', 64)}, deadline ${display(record.deadlineTime, 40)}`,
    );
  }
  if (record.rollback !== undefined) {
    const { from, by, reason } = record.rollback;
    lines.push(
      `      rollback from ${display(from, 64)} by ${by.map((p) => display(p, 64)).join(', ')}: ${display(reason, 200)}`,
    );
  }
  if (record.resolution !== undefined) lines.push(`      resolved: ${record.resolution}`);
  if (record.message !== undefined) lines.push(`      ${display(record.message, 300)}`);
  if (record.pullRequest !== undefined) {
    const { url, state } = record.pullRequest;
    lines.push(`      pull request ${redactUrls(url)} (${state})`);
  }
  return lines;
}
