/**
 * The alerting rules of manifests/monitoring/: the PrometheusRule and the plain rules file hold
 * the same groups, every alert is complete (severity, summary, description, a runbook in
 * docs/alerts.md) and names only metrics the gateway registers, `promtool check rules` accepts
 * them, and `promtool test rules` runs a firing and a quiet case of every alert
 * (test/monitoring/rules/<group>.promtool.yaml).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { packagePath } from '../../src/paths.js';
import { tempDir } from '../support/temp-dirs.js';
import {
  RULES_FILE,
  alertRules,
  gatewayMetricNames,
  operatorRuleGroups,
  plainRuleGroups,
  registeredSeriesNames,
} from './support/monitoring-kit.js';
import { promtool, skipPrometheusTests } from './support/prometheus.js';

const RUNBOOKS = 'https://github.com/example/promotion-gateway/blob/main/docs/alerts.md#';
const TESTS_DIR = join(import.meta.dirname, 'rules');

/** GitHub's anchor of a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

interface PromtoolCase {
  alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[];
}

/** Each promtool test file's alert cases: alert name -> [firing cases, quiet cases]. */
function casesOf(file: string): Map<string, [number, number]> {
  const { tests } = parse(readFileSync(join(TESTS_DIR, file), 'utf8')) as { tests: PromtoolCase[] };
  const cases = new Map<string, [number, number]>();
  for (const test of tests)
    for (const { alertname, exp_alerts: expected } of test.alert_rule_test ?? []) {
      const [firing, quiet] = cases.get(alertname) ?? [0, 0];
      cases.set(alertname, expected.length > 0 ? [firing + 1, quiet] : [firing, quiet + 1]);
    }
  return cases;
}

describe('the alerting rules', () => {
  it('are the same groups in the PrometheusRule and the plain rules file', () => {
    expect(plainRuleGroups().length).toBeGreaterThan(0);
    expect(operatorRuleGroups()).toEqual(plainRuleGroups());
  });

  it('name each alert PromotionGateway*, once, with a severity, a summary, a description and a runbook', () => {
    const headings = readFileSync(packagePath('docs/alerts.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) => anchorOf(line.replace(/^#+/, '')));
    const names = alertRules().map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of alertRules()) {
      expect(rule.alert).toMatch(/^PromotionGateway[A-Z][A-Za-z]+$/);
      expect(['critical', 'warning']).toContain(rule.labels.severity);
      expect(Object.keys(rule.annotations).sort()).toEqual([
        'description',
        'runbook_url',
        'summary',
      ]);
      expect(rule.annotations.runbook_url).toBe(RUNBOOKS + rule.alert.toLowerCase());
      expect(headings, `docs/alerts.md has no section ${rule.alert}`).toContain(
        rule.alert.toLowerCase(),
      );
    }
  });

  it('name only metrics the gateway registers', async () => {
    const registered = await registeredSeriesNames();
    for (const rule of alertRules()) {
      const named = gatewayMetricNames(rule.expr);
      expect(named.length, rule.alert).toBeGreaterThan(0);
      for (const name of named) expect(registered, `${rule.alert}: ${name}`).toContain(name);
    }
  });

  it('have a promtool test file per group, with a firing and a quiet case of every alert', () => {
    const files = readdirSync(TESTS_DIR).filter((f) => f.endsWith('.promtool.yaml'));
    expect(files.sort()).toEqual(
      plainRuleGroups()
        .map((g) => `${g.name.replace(/^promotion-gateway\./, '')}.promtool.yaml`)
        .sort(),
    );
    for (const group of plainRuleGroups()) {
      const cases = casesOf(`${group.name.replace(/^promotion-gateway\./, '')}.promtool.yaml`);
      for (const rule of group.rules) {
        const [firing, quiet] = cases.get(rule.alert) ?? [0, 0];
        expect(firing, `${rule.alert} fires in no case`).toBeGreaterThan(0);
        expect(quiet, `${rule.alert} stays quiet in no case`).toBeGreaterThan(0);
      }
    }
  });
});

describe.skipIf(skipPrometheusTests())('promtool', () => {
  it('checks the plain rules file and the PrometheusRule groups', () => {
    const operatorFile = join(tempDir('rules-'), 'prometheusrule-groups.yaml');
    writeFileSync(operatorFile, stringify({ groups: operatorRuleGroups() }));
    for (const file of [RULES_FILE, operatorFile]) {
      const run = promtool('check', 'rules', file);
      expect(run.output).toContain(`SUCCESS: ${String(alertRules().length)} rules found`);
      expect(run.status).toBe(0);
    }
  });

  it.each(readdirSync(TESTS_DIR).filter((f) => f.endsWith('.promtool.yaml')))(
    'passes the cases of %s',
    (file) => {
      const run = promtool('test', 'rules', join(TESTS_DIR, file));
      expect(run.output).toContain('SUCCESS');
      expect(run.status, run.output).toBe(0);
    },
  );

  it('fails a case that expects the wrong alert, so a pass means something', () => {
    const dir = tempDir('promtool-');
    const wrong = {
      rule_files: [RULES_FILE],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            { series: 'promotion_gateway_ready{namespace="promotion-system"}', values: '1x20' },
          ],
          alert_rule_test: [
            {
              eval_time: '10m',
              alertname: 'PromotionGatewayDown',
              exp_alerts: [{ exp_labels: { severity: 'critical' } }],
            },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'wrong.yaml'), stringify(wrong));
    const run = promtool('test', 'rules', join(dir, 'wrong.yaml'));
    expect(run.status).not.toBe(0);
    expect(run.output).toContain('FAILED');
  });
});
