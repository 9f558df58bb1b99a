/**
 * The monitoring kit against a real Prometheus (Debian's package) scraping two real gateway
 * replicas on kube-sim every second: after an event promotes, a credential is refused and a
 * resync finds a change no event announced, every dashboard query answers with data (or, for
 * what a short run cannot produce, names only series the gateway exposes), the rules load and
 * evaluate healthy, and on this healthy fleet only the unannounced-change alert's condition holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  eventually,
  launchGateway,
  postSigned,
  recordOf,
  rollOut,
  startTestFleet,
  upgradeBody,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import {
  RULES_FILE,
  alertRules,
  exposedSeriesNames,
  metricNames,
  panelQueries,
} from './support/monitoring-kit.js';
import {
  skipPrometheusTests,
  startPrometheus,
  type PrometheusServer,
  type QueryResult,
} from './support/prometheus.js';

const NS = 'monitoring';
/** Grafana's `$__rate_interval`, as the dashboard would resolve it over a short run. */
const RATE_INTERVAL = '5m';
/** Panels a short run without PromotionAlerts, approvals or shadow gates leaves empty. */
const EMPTY_IN_A_SHORT_RUN = new Set([
  'Shadow holds by gate',
  'Authorizations by kind and outcome',
  'Notifications by alert and result',
  'Notification backlog',
  'Oldest undelivered notification',
]);

let fleet: TestFleet;
const replicas: RunningGateway[] = [];
let prometheus: PrometheusServer | undefined;
let exposed = new Set<string>();

function server(): PrometheusServer {
  if (prometheus === undefined) throw new Error('Prometheus did not start');
  return prometheus;
}

function metricsUrl(replica: RunningGateway): string {
  const address = replica.gateway.metricsAddress();
  if (address === undefined) throw new Error('no metrics listener');
  return address;
}

/** The one value of a query's single series, as a number. */
async function scalar(query: string): Promise<number> {
  const [first] = await server().query(query);
  return Number(first?.value[1] ?? Number.NaN);
}

function finite(results: readonly QueryResult[]): boolean {
  return results.some((r) => Number.isFinite(Number(r.value[1])));
}

/** An event promotes staging, a wrong key is refused, a change without an event is resynced. */
async function driveTraffic(): Promise<void> {
  const [a] = replicas;
  if (a === undefined) throw new Error('no replica');
  const body = upgradeBody(rollOut(fleet.dev, NS, '6.6.0'));
  expect((await postSigned(a.url, '/v1/events/dev', body, fleet.key('dev'))).status).toBe(202);
  await eventually(() => recordOf(fleet, NS, 'staging')?.revision === '6.6.0');
  const refused = await postSigned(a.url, '/v1/events/dev', body, Buffer.from('not the key'));
  expect(refused.status).toBe(401);
  rollOut(fleet.dev, NS, '6.7.0');
  await a.gateway.resync();
  await eventually(() => recordOf(fleet, NS, 'staging')?.revision === '6.7.0');
  for (const r of replicas) await r.gateway.idle();
}

describe.skipIf(skipPrometheusTests())('a real Prometheus scraping two gateway replicas', () => {
  beforeAll(async () => {
    fleet = await startTestFleet();
    for (const instanceId of ['replica-a', 'replica-b'])
      replicas.push(
        await launchGateway(fleet, {
          instanceId,
          config: { server: { host: '127.0.0.1', port: 0, metricsPort: 0 } },
        }),
      );
    createApp(fleet, NS);
    await waitSteady(fleet, replicas, NS);
    const targets = replicas.map((r) => new URL(metricsUrl(r)).host);
    prometheus = await startPrometheus(targets, [RULES_FILE]);
    // Both replicas scraped before the traffic, so every counter's rise is seen as one.
    await eventually(async () => (await scalar('count(promotion_gateway_ready == 1)')) === 2, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    await driveTraffic();
    await eventually(
      async () =>
        (await scalar('sum(promotion_gateway_unannounced_changes_total)')) >= 1 &&
        (await scalar('sum(promotion_gateway_promotions_total{outcome="Promoted"})')) >= 2 &&
        (await scalar('sum(promotion_gateway_refusals_total)')) >= 1 &&
        // Series born in the traffic (refusals, events) need two samples before rate() sees them.
        (await scalar('min(count_over_time(promotion_gateway_refusals_total[5m]))')) >= 2,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    for (const r of replicas) {
      const text = await (await fetch(`${metricsUrl(r)}/metrics`)).text();
      exposed = new Set([...exposed, ...exposedSeriesNames(text)]);
    }
  });
  afterAll(async () => {
    await prometheus?.stop();
    await Promise.all(replicas.map((r) => r.close()));
    await fleet.close();
  });

  it('sees both replicas ready and one resync leader', async () => {
    expect(await scalar('sum(promotion_gateway_ready)')).toBe(2);
    expect(await scalar('sum(promotion_gateway_resync_leader)')).toBe(1);
  });

  it('answers every dashboard query with data, or names only exposed series where a short run has none', async () => {
    for (const { title, exprs } of panelQueries()) {
      for (const expr of exprs) {
        const names = metricNames(expr);
        expect(names.length, `${title}: ${expr}`).toBeGreaterThan(0);
        for (const name of names) expect(exposed, `${title}: ${name}`).toContain(name);
        const results = await server().query(expr.replaceAll('$__rate_interval', RATE_INTERVAL));
        if (EMPTY_IN_A_SHORT_RUN.has(title)) continue;
        expect(finite(results), `${title}: ${expr} -> ${JSON.stringify(results)}`).toBe(true);
      }
    }
  });

  it('loads every alerting rule and evaluates it healthy', async () => {
    const wanted = alertRules()
      .map((r) => r.alert)
      .sort();
    await eventually(
      async () => {
        const data = (await server().api('/api/v1/rules')) as {
          groups: { rules: { name: string; health: string; lastError?: string }[] }[];
        };
        const rules = data.groups.flatMap((g) => g.rules);
        expect(rules.map((r) => r.name).sort()).toEqual(wanted);
        for (const rule of rules)
          expect(rule.health, `${rule.name}: ${rule.lastError ?? ''}`).toBe('ok');
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  });

  it('holds only the unannounced-change alert condition on this healthy fleet', async () => {
    const holding: string[] = [];
    for (const rule of alertRules()) {
      if ((await server().query(rule.expr)).length > 0) holding.push(rule.alert);
    }
    expect(holding).toEqual(['PromotionGatewayEventsMissing']);
  });
});
