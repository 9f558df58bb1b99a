/**
 * PromotionAlerts of other formats and answers, through real HTTP against kube-sim: a Slack
 * alert whose webhook URL (a secret) is in its Secret, told that prod waits for an approval;
 * a CloudEvents alert; an alert whose receiver answers 410 Gone stops with Ready=False. The
 * Slack URL's secret path appears in no log line, no metric and no status.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertStatus } from '../../src/notify/alert-resource.js';
import {
  createApp,
  eventually,
  launchGateway,
  recordOf,
  startTestFleet,
  waitSteady,
  type RunningGateway,
  type TestFleet,
} from '../support/gateway-harness.js';
import { announceRollout } from '../support/policy-harness.js';

const NS = 'notify-formats';
const ALERT_API = 'notifications.promotion-gateway.dev/v1alpha1';
const SLACK_SECRET_PATH = '/services/T000/B000/xoxb-very-secret-path';
/** The notifier's longest wait before a retry. */
const RETRY_MAX_MS = 200;

interface Request {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let fleet: TestFleet;
let gw: RunningGateway;
let server: Server;
let base = '';
const requests: Request[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(req.url === '/gone' ? 410 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${String(address.port)}`;
  fleet = await startTestFleet();
  createApp(fleet, NS, { prodPromotion: { manual: true } });
  fleet.management.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'slack', namespace: NS },
    type: 'Opaque',
    data: { address: Buffer.from(`${base}${SLACK_SECRET_PATH}`).toString('base64') },
  });
  const alert = (name: string, spec: object) =>
    fleet.management.apply({
      apiVersion: ALERT_API,
      kind: 'PromotionAlert',
      metadata: { name, namespace: NS },
      spec,
    });
  alert('chat', {
    type: 'slack',
    secretRef: { name: 'slack' },
    eventTypes: ['WaitingForApproval', 'PromotionSucceeded'],
    timeout: '1s',
  });
  alert('events', { type: 'cloudevents', address: `${base}/cloudevents`, timeout: '1s' });
  alert('gone', { address: `${base}/gone`, timeout: '1s' });
  gw = await launchGateway(fleet, {
    logLines,
    config: {
      // The receiver is on loopback, which an operator opens by writing its address.
      notifications: {
        intervalMs: 100,
        retryBaseMs: 50,
        retryMaxMs: RETRY_MAX_MS,
        allowedUrlPrefixes: [`${base}/`],
      },
    },
  });
  await waitSteady(fleet, [gw], NS);
});

/** The LISTs of PromotionAlerts the management cluster has answered. */
const alertLists = (): number =>
  fleet.management.requests.count({
    verb: 'list',
    resource: 'promotionalerts.notifications.promotion-gateway.dev',
  });

afterAll(async () => {
  await gw.close();
  await fleet.close();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

function alertStatus(name: string): AlertStatus | undefined {
  return fleet.management.get(ALERT_API, 'PromotionAlert', NS, name)?.status as
    AlertStatus | undefined;
}

describe('PromotionAlerts of every format', () => {
  it('tells Slack that prod waits for an approval, CloudEvents everything, and stops at 410', async () => {
    await announceRollout(fleet, [gw], NS, 'dev', '6.6.0');
    await eventually(() => recordOf(fleet, NS, 'staging')?.phase === 'Succeeded', {
      timeoutMs: 20_000,
    });
    await announceRollout(fleet, [gw], NS, 'staging', '6.6.0');

    const slack = await eventually(
      () => {
        const found = requests.filter((r) => r.path === SLACK_SECRET_PATH);
        expect(found.map((r) => (JSON.parse(r.body) as { text: string }).text).join('\n')).toMatch(
          /prod.*6\.6\.0/,
        );
        return found;
      },
      { timeoutMs: 20_000 },
    );
    const message = JSON.parse(slack[0]?.body ?? '{}') as { text?: string; blocks?: unknown[] };
    expect(message.blocks?.length).toBeGreaterThan(0);
    // Only the two types the alert asked for, and nothing about staging's start.
    expect(slack.every((r) => /approv|succeeded/i.test(r.body))).toBe(true);

    const cloud = await eventually(
      () => {
        const found = requests.filter((r) => r.path === '/cloudevents');
        expect(found.length).toBeGreaterThanOrEqual(3);
        return found;
      },
      { timeoutMs: 20_000 },
    );
    for (const r of cloud) {
      expect(r.headers['content-type']).toBe('application/cloudevents+json');
      const event = JSON.parse(r.body) as Record<string, unknown>;
      expect(event).toMatchObject({
        specversion: '1.0',
        source: `/promotion-gateway/pipelines/${NS}/podinfo`,
      });
      expect(String(event.type)).toMatch(/^dev\.promotion-gateway\./);
    }
    const waiting = cloud
      .map((r) => JSON.parse(r.body) as { type: string; subject: string })
      .find((e) => e.type.endsWith('waiting_for_approval') || e.type.includes('waiting'));
    expect(waiting?.subject).toBe('prod');

    await eventually(
      () => {
        expect(alertStatus('gone')?.conditions?.[0]).toMatchObject({
          type: 'Ready',
          status: 'False',
          reason: 'Gone',
        });
      },
      { timeoutMs: 20_000 },
    );
    const goneCalls = requests.filter((r) => r.path === '/gone').length;
    // Past any retry the notifier could wait for, on its clock, then three more of its ticks
    // (each starts with one LIST of the alerts): a send to /gone would have come by then.
    gw.advanceClock(RETRY_MAX_MS);
    const lists = alertLists();
    await eventually(() => alertLists() >= lists + 3);
    expect(requests.filter((r) => r.path === '/gone').length).toBe(goneCalls);
    expect(alertStatus('chat')?.conditions?.[0]).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
    });

    // The secret URL path is nowhere but in the requests themselves.
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(
      /promotion_gateway_notifications_total\{alert="notify-formats\/chat",result="Delivered"\} [1-9]/,
    );
    for (const text of [logLines.join('\n'), metrics, JSON.stringify(alertStatus('chat'))]) {
      expect(text).not.toContain('xoxb-very-secret-path');
    }
  }, 60_000);
});
