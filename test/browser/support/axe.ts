/**
 * axe-core in the page: its source is evaluated through the DevTools protocol (page.evaluate),
 * which the page's Content-Security-Policy does not govern, so the view is checked under its
 * real CSP (no inline script, no bypass). Results are the WCAG 2.x A/AA rules and axe's best
 * practices.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** One rule a page breaks, as axe reports it. */
export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

const RUN = `axe.run(document, {
  resultTypes: ['violations'],
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
})`;

/** Every violation axe finds on the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate<{ violations: AxeViolation[] }>(RUN);
  return result.violations;
}

/** The serious and critical ones, one line each (rule, what it asks, where). */
export function seriousOrCritical(violations: readonly AxeViolation[]): string[] {
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact ?? ''} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
}

/** All of them, one line each, for the test's output. */
export function describeViolations(violations: readonly AxeViolation[]): string[] {
  return violations.map(
    (v) => `${v.impact ?? 'n/a'} ${v.id} (${String(v.nodes.length)}): ${v.help}`,
  );
}
