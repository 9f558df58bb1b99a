/**
 * The approver of the chaos run: watches the gated Pipelines' status for prod waiting for
 * approval and, a person's reaction time later (1 to 5 s), reads the Pipeline through the
 * gateway's API, signs an approval statement with the approver's own key and posts it to a live
 * replica. Every call is recorded (sent, answered) so that the checks can tell whether a gated
 * promotion followed its approval. Meanwhile a dashboard reads random Pipelines through the API.
 */
import { SignJWT, generateKeyPair, exportSPKI } from 'jose';
import { statement, type TestApprover } from '../authorizations.js';
import type { TestFleet } from '../fleet.js';
import { statusOf, type App } from './apps.js';
import { sleep, type GatewayClient } from './gateway-client.js';
import type { ApprovalCall, Journal } from './journal.js';

/** What the approver needs from the run. */
export interface ApproverOptions {
  fleet: TestFleet;
  journal: Journal;
  client: GatewayClient;
  apps: readonly App[];
  approver: TestApprover;
  /** A bearer token whose `pipelines` claim covers every Pipeline, for API reads. */
  readerToken: string;
  random: () => number;
}

/** Approvals in flight at once: a person is not a load generator. */
const AT_ONCE = 4;
/** A revision asked again no sooner than this after a refused or unanswered call. */
const RETRY_MS = 1_000;

/** Approves what gated prods wait for, until stopped. */
export class Approver {
  private readonly done = new Set<string>();
  private readonly lastTry = new Map<string, number>();
  /** When the approver first saw each (pipeline, revision) waiting, and how long it will take. */
  private readonly noticed = new Map<string, number>();
  private inFlight = 0;
  private stopped = false;

  constructor(private readonly options: ApproverOptions) {}

  /** Scans twice a second, and reads one Pipeline for the dashboard, until stop(). */
  async run(): Promise<void> {
    while (!this.stopped) {
      this.scan();
      const { apps, random } = this.options;
      const app = apps[Math.floor(random() * apps.length)];
      if (app !== undefined) void this.read(app);
      await sleep(500);
    }
  }

  /** Stops scanning (calls in flight finish on their own). */
  stop(): void {
    this.stopped = true;
  }

  private scan(): void {
    const { apps, fleet } = this.options;
    for (const app of apps) {
      if (!app.gated || this.inFlight >= AT_ONCE) continue;
      const waiting = statusOf(fleet, app)?.environments?.prod?.waitingApproval?.revision;
      if (waiting === undefined) continue;
      const key = `${app.id} ${waiting}`;
      const due = this.noticed.get(key) ?? Date.now() + 1_000 + this.options.random() * 4_000;
      this.noticed.set(key, due);
      if (this.done.has(key) || Date.now() < due) continue;
      if (Date.now() - (this.lastTry.get(key) ?? 0) < RETRY_MS) continue;
      this.lastTry.set(key, Date.now());
      this.inFlight++;
      void this.approve(app, waiting, key).finally(() => this.inFlight--);
    }
  }

  /** One API read of `app`'s verified view, as a dashboard or the approver's tool does. */
  private read(app: App): Promise<unknown> {
    return this.options.client.send({
      kind: 'read',
      path: `/v1/pipelines/${app.ns}/${app.name}`,
      method: 'GET',
      headers: { authorization: `Bearer ${this.options.readerToken}` },
    });
  }

  private async approve(app: App, revision: string, key: string): Promise<void> {
    const { client, journal, approver } = this.options;
    await this.read(app);
    const jws = await statement(approver, { pipeline: app.id, environment: 'prod', revision });
    const call: ApprovalCall = { pipeline: app.id, revision, sentAt: Date.now() };
    journal.approvals.push(call);
    const answer = await client.send({
      kind: 'approval',
      path: `/v1/pipelines/${app.ns}/${app.name}/environments/prod/approvals`,
      method: 'POST',
      headers: { 'content-type': 'application/jose' },
      body: jws,
    });
    call.answeredAt = Date.now();
    if (answer === undefined) {
      call.error = 'no replica answered';
      return;
    }
    call.status = answer.status;
    if (answer.status >= 400) call.code = codeOf(answer.body);
    // Replayed: the same statement was recorded by a replica whose answer was lost.
    if (answer.status === 202 || call.code === 'Replayed') this.done.add(key);
  }
}

function codeOf(body: string): string {
  try {
    return String((JSON.parse(body) as { code?: unknown }).code);
  } catch {
    return body.slice(0, 80);
  }
}

/** An API reader: its issuer, audience and public key for the config, and a token for `*`. */
export async function apiReader(): Promise<{
  issuer: string;
  audience: string;
  publicKeyPem: string;
  token: string;
}> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  const issuer = 'https://sso.chaos.test';
  const audience = 'promotion-gateway';
  const token = await new SignJWT({ pipelines: ['*'] })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject('chaos-reader')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  return { issuer, audience, publicKeyPem: await exportSPKI(publicKey), token };
}
