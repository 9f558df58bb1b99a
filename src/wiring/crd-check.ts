/**
 * The installed Pipeline CRD, checked at start and again every resync interval: a CRD that
 * prunes the promotion records would let every check promote again. At start the gateway
 * refuses to run on one; a CRD replaced while it runs (weave-gitops' own, reinstalled by an
 * upgrade) holds every status write, and so every promotion, until a check finds the records
 * kept again.
 */
import { StatusWritesHeld } from '../kube/status-writer.js';
import { readPipelineSchema, type InstalledSchema } from '../kube/pipeline-crd.js';
import { readSchema } from '../schemas.js';
import { prunedStatusFields } from '../status/kept-fields.js';
import type { Runtime } from './runtime.js';

/** The installed CRD would prune status fields the gateway writes; the message names them. */
export class InstalledCrdError extends Error {
  constructor(readonly lost: readonly string[]) {
    super(
      `the Pipeline CRD installed in the management cluster would prune status fields the gateway writes (${lost.join(', ')}): promotions could not be recorded, so they could repeat. Install this project's CRD (manifests/crd/pipelines.weave.works_pipelines.yaml, a superset of weave-gitops' own) and start again`,
    );
    this.name = 'InstalledCrdError';
  }
}

/** What one read of the installed CRD found. */
type CrdFinding =
  | { kind: 'Keeps' }
  | { kind: 'Prunes'; lost: readonly string[] }
  | { kind: 'Unreadable'; reason: string; message: string };

type GuardRuntime = Pick<Runtime, 'management' | 'calls' | 'logger' | 'scheduler' | 'config'>;

/**
 * How old the last check may be when a status write is made. Why: a write under a CRD that
 * prunes stores the pruned object whole (the spec's gates too, until the Pipeline is applied
 * again), so a write checks first when the last check is older than this; one GET serves every
 * write waiting for it.
 */
export const CRD_FRESH_MS = 2_000;

/** The CRD check of one gateway; `beforeWrite` is the status writer's (see StatusWritesHeld). */
export class CrdGuard {
  private holding: StatusWritesHeld | undefined;
  private cancel: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** When the last check read the CRD (monotonic ms); whether it can be read at all. */
  private checkedAt = Number.NEGATIVE_INFINITY;
  private readable = true;

  /**
   * `readInstalled` reads the installed CRD's schema (one GET; a fake in unit tests); `freshMs`
   * is how old a check may be when a write is made (CRD_FRESH_MS; a seam for tests).
   */
  constructor(
    private readonly rt: GuardRuntime,
    private readonly readInstalled: () => Promise<InstalledSchema> = () =>
      readPipelineSchema(rt.management, rt.calls),
    private readonly freshMs = CRD_FRESH_MS,
  ) {}

  /** The error status writes reject with while the CRD prunes; undefined while it keeps. */
  readonly held = (): StatusWritesHeld | undefined => this.holding;

  /**
   * `held()` as of a check no older than `freshMs` (made now when the last is older, shared by
   * the writes waiting for it); where the CRD cannot be read, as of the last check.
   */
  readonly beforeWrite = async (): Promise<StatusWritesHeld | undefined> => {
    const age = this.rt.scheduler.monotonic() - this.checkedAt;
    if (this.readable && age > this.freshMs) await this.recheck();
    return this.holding;
  };

  /**
   * The start-up check: rejects with InstalledCrdError on a CRD that prunes, warns and goes on
   * when the CRD cannot be read (no RBAC to get it, the API down: the watch reports an absent
   * CRD in its own words); then re-checks every resync interval until stop().
   */
  async start(): Promise<void> {
    const found = await this.read();
    if (found.kind === 'Prunes') throw new InstalledCrdError(found.lost);
    // Without the right to read it, a check before every write would only repeat the refusal.
    this.readable = found.kind !== 'Unreadable';
    if (found.kind === 'Unreadable')
      this.rt.logger.warn(
        { reason: found.reason },
        `could not check the installed Pipeline CRD (${found.message}); a CRD that prunes the gateway's status fields would lose its promotion records`,
      );
    this.schedule();
  }

  /**
   * One check now (the timer's, an unkept write's; tests call it): holds status writes when the
   * CRD prunes, lets them go when it keeps. A CRD that cannot be read changes nothing. Calls
   * while one runs share it: a wave's claims that all find the CRD pruning make one GET.
   */
  recheck(): Promise<void> {
    this.running ??= this.check().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async check(): Promise<void> {
    const found = await this.read();
    const { logger } = this.rt;
    if (found.kind === 'Unreadable') {
      logger.debug({ reason: found.reason }, 'could not re-check the installed Pipeline CRD');
    } else if (found.kind === 'Prunes') {
      if (this.holding?.lost.join() === found.lost.join()) return;
      this.holding = new StatusWritesHeld(found.lost);
      logger.error({ fields: found.lost }, this.holding.message);
    } else if (this.holding !== undefined) {
      this.holding = undefined;
      logger.info('status writes resumed: the installed Pipeline CRD keeps every status field');
    }
  }

  /** Ends the re-checks. */
  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.cancel = this.rt.scheduler.setTimer(this.rt.config.resync.intervalMs, () => {
      void this.recheck().finally(() => {
        this.schedule();
      });
    });
  }

  private async read(): Promise<CrdFinding> {
    const installed = await this.readInstalled();
    this.checkedAt = this.rt.scheduler.monotonic();
    if (!installed.ok)
      return { kind: 'Unreadable', reason: installed.reason, message: installed.message };
    const lost = prunedStatusFields(readSchema('pipeline.schema.json'), installed.schema);
    return lost.length === 0 ? { kind: 'Keeps' } : { kind: 'Prunes', lost };
  }
}
