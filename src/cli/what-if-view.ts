/**
 * What `promotion-gateway what-if` prints, pure: a table of the environments whose decision
 * changes (every environment with --all) and a count, or the answer as JSON (the shape
 * `POST /v1/what-if` answers with).
 */
import type { WhatIfAnswer, WhatIfDecision } from '../evaluation/what-if.js';
import { escapeUnsafeJson, neutralize } from '../text/text.js';

const HEADERS = ['PIPELINE', 'ENVIRONMENT', 'CURRENT', 'PROPOSED', 'WHY'] as const;

/** The answer with only the changed environments (and the Pipelines that have one), unless `all`. */
export function shownOf(answer: WhatIfAnswer, all: boolean): WhatIfAnswer {
  if (all) return answer;
  const pipelines = answer.pipelines
    .map((p) => ({ ...p, environments: p.environments.filter((e) => e.changed) }))
    .filter((p) => p.environments.length > 0);
  return { ...answer, pipelines };
}

/** The table of `answer` as decided at `at` (RFC 3339), with its count of changes. */
export function renderWhatIf(answer: WhatIfAnswer, all: boolean, at: string): string {
  const environments = answer.pipelines.reduce((n, p) => n + p.environments.length, 0);
  const summary = `${String(answer.changed)} of ${String(environments)} environments (${String(answer.pipelines.length)} Pipelines) change under the proposed policy at ${at}.\n`;
  const shown = shownOf(answer, all);
  if (shown.pipelines.length === 0) return summary;
  const rows = shown.pipelines.flatMap((p) =>
    p.environments.map((e) => [
      `${p.namespace}/${p.name}`,
      e.environment,
      side(e.current),
      side(e.proposed),
      e.changed ? e.proposed.message : '',
    ]),
  );
  const cells = [[...HEADERS], ...rows.map((r) => r.map(neutralize))];
  const widths = HEADERS.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const table = cells.map((line) =>
    line
      .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  return `${table.join('\n')}\n\n${summary}`;
}

/** The answer as JSON, at `at`: what the API answers, filtered like the table. */
export function renderWhatIfJson(answer: WhatIfAnswer, all: boolean, at: string): string {
  return `${escapeUnsafeJson(JSON.stringify({ at, ...shownOf(answer, all) }, null, 2))}\n`;
}

function side(d: WhatIfDecision): string {
  return `${d.decision} (${d.reason})`;
}
