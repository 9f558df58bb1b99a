/**
 * One chaos run from start to end: the gateway bundled, the fleet and its Pipelines, the
 * receiver, two replica processes; then the load, the approver and the chaos together; then the
 * bounded wait for convergence. Everything it starts is held here so that `cleanup` stops it,
 * whether the run completed or failed half-way.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approver } from '../authorizations.js';
import { ENVIRONMENTS, GATEWAY_USER, startTestFleet, type TestFleet } from '../fleet.js';
import { AlertReceiver, createAlerts, namespacesOf, undeliveredSuccesses } from './alerts.js';
import { createApps, type App } from './apps.js';
import { apiReader, Approver } from './approver.js';
import { bundleGateway, type GatewayBundle } from './bundle.js';
import { Chaos } from './chaos.js';
import { GatewayClient, sleep } from './gateway-client.js';
import { Journal } from './journal.js';
import { readKnobs, seededRandom, timelineOf, type Knobs, type Timeline } from './knobs.js';
import { Load } from './load.js';
import { Receiver } from './receiver.js';
import type { SharedSettings } from './replica-config.js';
import { Replicas } from './replicas.js';
import { settle, stateOf, type AppState, type Settled } from './settle.js';

/** What a finished run hands the checks. */
export interface RunResult {
  knobs: Knobs;
  timeline: Timeline;
  journal: Journal;
  apps: App[];
  settled: Settled;
  /** The states once every request in flight was answered, after the wait. */
  final: AppState[];
  /** What the PromotionAlerts' check found (alerts.ts), and how many notifications arrived. */
  alerts: string[];
  notifications: number;
  loadMs: number;
  boundMs: number;
  eventsSent: number;
  kills: number;
}

/** A chaos run and everything it started. */
export class ChaosScenario {
  readonly knobs = readKnobs();
  readonly timeline = timelineOf(this.knobs.seconds, this.knobs.latency);
  readonly journal = new Journal();
  readonly dir = mkdtempSync(join(tmpdir(), 'chaos-promotions-'));
  private bundle: GatewayBundle | undefined;
  private fleet: TestFleet | undefined;
  private receiver: Receiver | undefined;
  private readonly alertReceiver = new AlertReceiver();
  replicas: Replicas | undefined;
  private load: Load | undefined;
  private approver: Approver | undefined;
  private chaos: Chaos | undefined;
  private client: GatewayClient | undefined;
  private probing: Promise<void> | undefined;

  /** A PRNG per actor, so each one's choices repeat with the seed. */
  private random(actor: number): () => number {
    return seededRandom(this.knobs.seed + actor * 7919);
  }

  /** Runs the whole scenario; throws only if the test bed itself cannot be set up. */
  async run(): Promise<RunResult> {
    const { knobs, journal } = this;
    this.bundle = await bundleGateway();
    const fleet = (this.fleet = await startTestFleet());
    const apps = createApps(fleet, knobs.pipelines);
    const alertUrl = await this.alertReceiver.start();
    createAlerts(fleet, namespacesOf(apps), alertUrl);
    const alice = await approver('alice');
    const reader = await apiReader();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const receiver = (this.receiver = new Receiver({
      fleet,
      journal,
      apps: new Map(apps.map((a) => [a.id, a])),
      secret,
      random: this.random(1),
      onRollout: (event) => this.load?.emit(event),
    }));
    await receiver.start();
    const shared: SharedSettings = {
      hmacKeys: Object.fromEntries(ENVIRONMENTS.map((e) => [e, fleet.key(e).toString('utf8')])),
      receiverUrl: receiver.url,
      alertUrl,
      webhookSecret: secret,
      approver: { name: alice.name, publicKeyPem: alice.publicKeyPem },
      reader,
      logLevel: knobs.logLevel,
    };
    const replicas = await this.startReplicas(fleet, shared);
    const client = (this.client = new GatewayClient(replicas, journal, this.random(2)));
    this.load = new Load({ fleet, journal, client, apps, knobs, random: this.random(3) });
    const approverOptions = { fleet, journal, client, apps, readerToken: reader.token };
    this.approver = new Approver({ ...approverOptions, approver: alice, random: this.random(5) });
    this.chaos = new Chaos({
      fleet,
      journal,
      replicas,
      receiver,
      timeline: this.timeline,
      random: this.random(4),
    });
    return this.drive(fleet, apps, replicas);
  }

  private async startReplicas(fleet: TestFleet, shared: SharedSettings): Promise<Replicas> {
    const kubeconfig = join(this.dir, 'management.kubeconfig');
    writeFileSync(kubeconfig, fleet.management.kubeconfig(GATEWAY_USER), { mode: 0o600 });
    const replicas = (this.replicas = new Replicas({
      bundle: this.bundle?.file ?? '',
      dir: this.dir,
      kubeconfig,
      shared,
      journal: this.journal,
    }));
    await Promise.all([replicas.start('a'), replicas.start('b')]);
    this.probing = replicas.probe();
    if (!(await replicas.allReady(60_000)))
      throw new Error(`the replicas did not turn ready:\n${replicas.tails(40)}`);
    return replicas;
  }

  private async drive(fleet: TestFleet, apps: App[], replicas: Replicas): Promise<RunResult> {
    const { knobs, journal } = this;
    const [load, approver, chaos, client] = [this.load, this.approver, this.chaos, this.client];
    if (!load || !approver || !chaos || !client) throw new Error('the scenario is not set up');
    journal.t0 = Date.now();
    journal.step('load started');
    await chaos.start();
    const approving = approver.run();
    await load.run(knobs.seconds * 1000);
    const loadEnd = Date.now();
    journal.step('load stopped');
    // The last restart may still be under way: bounded, the wait below covers the rest.
    await Promise.race([chaos.finished(), sleep(15_000)]);
    await chaos.stop();
    const boundMs = knobs.convergeSeconds * 1000;
    const also = () => undeliveredSuccesses(fleet, apps, this.alertReceiver).length === 0;
    const settled = await settle(fleet, apps, replicas, { from: loadEnd, boundMs, also });
    journal.step(settled.convergedAfterMs === undefined ? 'gave up waiting' : 'converged');
    approver.stop();
    await approving;
    await client.drain();
    // Everything the checks read, for a closer look at a failure (kept with CHAOS_KEEP=1).
    writeFileSync(join(this.dir, 'journal.json'), JSON.stringify(journal, null, 1));
    return {
      knobs,
      timeline: this.timeline,
      journal,
      apps,
      settled,
      final: apps.map((app) => stateOf(fleet, app)),
      alerts: undeliveredSuccesses(fleet, apps, this.alertReceiver),
      notifications: this.alertReceiver.deliveries,
      loadMs: loadEnd - journal.t0,
      boundMs,
      eventsSent: load.events,
      kills: chaos.kills,
    };
  }

  /** Stops everything the run started (children first), keeps the logs only with CHAOS_KEEP=1. */
  async cleanup(): Promise<void> {
    this.load?.stop();
    this.approver?.stop();
    await this.chaos?.stop().catch(() => undefined);
    this.client?.close();
    await this.replicas?.stopAll();
    await this.probing;
    await this.client?.drain();
    await this.receiver?.close();
    await this.alertReceiver.close();
    await this.fleet?.close();
    this.bundle?.remove();
    if (!this.knobs.keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
