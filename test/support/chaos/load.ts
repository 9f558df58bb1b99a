/**
 * The chaos run's load, as a platform team's busy day: new dev revisions rolled out at a steady
 * rate (a few hot applications take most of them, often several in a row, as a merge train
 * does, so that staging moves twice while prod decides), each followed by Flux's signed event, some
 * sent to every replica at once, and replays of event bodies captured earlier (generic-hmac carries no nonce, so a
 * captured body stays valid). Sending never waits for the answer, so the rate holds however
 * slow the replicas answer.
 */
import type { TestFleet } from '../fleet.js';
import { eventRequest, rollOut, type App, type CapturedEvent } from './apps.js';
import { sleep, type GatewayClient } from './gateway-client.js';
import type { Journal } from './journal.js';
import type { Knobs } from './knobs.js';

/** What the load needs from the run. */
export interface LoadOptions {
  fleet: TestFleet;
  journal: Journal;
  client: GatewayClient;
  apps: readonly App[];
  knobs: Knobs;
  random: () => number;
}

/** How many captured bodies are kept for replays. */
const CAPTURE_LIMIT = 5_000;

/** The load generator; `events` counts every event it sent (duplicates and replays included). */
export class Load {
  events = 0;
  private readonly captured: CapturedEvent[] = [];
  private stopped = false;
  private last: App | undefined;

  constructor(private readonly options: LoadOptions) {}

  /** Runs for `ms` (or until stop()): revisions and replays at their rates. */
  async run(ms: number): Promise<void> {
    const { knobs } = this.options;
    const start = Date.now();
    let revisions = 0;
    let replays = 0;
    while (!this.stopped && Date.now() - start < ms) {
      const elapsed = (Date.now() - start) / 1000;
      for (; revisions < Math.floor(elapsed * knobs.rate); revisions++) this.newRevision();
      for (; replays < Math.floor(elapsed * knobs.replays); replays++) this.replay();
      await sleep(50);
    }
  }

  /** Stops the load at its next tick. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Sends a Flux event, to one replica or (a duplicate) to every replica at once, and keeps its
   * body for replays.
   */
  emit(event: CapturedEvent): void {
    const { client, fleet, random, knobs } = this.options;
    if (random() < knobs.duplicates) {
      this.events += client.live;
      void client.sendEach(eventRequest(fleet, event));
    } else this.send(event);
    if (this.captured.length < CAPTURE_LIMIT) this.captured.push(event);
    else this.captured[Math.floor(random() * CAPTURE_LIMIT)] = event;
  }

  private send(event: CapturedEvent): void {
    this.events++;
    void this.options.client.send(eventRequest(this.options.fleet, event));
  }

  /** The next revision of an application in dev: rolled out, then its event. */
  private newRevision(): void {
    const { apps, fleet, journal, random, knobs } = this.options;
    // A merge train: the revision after this one is, as often as not, of the same application.
    const app = this.last !== undefined && random() < knobs.burst ? this.last : apps[this.pick()];
    if (app === undefined) return;
    this.last = app;
    const version = `1.${String(app.devVersions.length + 1)}.0`;
    app.devVersions.push(version);
    const event = rollOut(fleet.dev, 'dev', app, version);
    journal.rollouts.push({ at: Date.now(), pipeline: app.id, env: 'dev', revision: version });
    this.emit(event);
  }

  private replay(): void {
    const { random } = this.options;
    const event = this.captured[Math.floor(random() * this.captured.length)];
    if (event !== undefined) this.send(event);
  }

  /** A third of the revisions go to any application, the rest mostly to the first few (hot). */
  private pick(): number {
    const { random, apps } = this.options;
    const r = random();
    return Math.floor((random() < 1 / 3 ? r : r * r) * apps.length);
  }
}
