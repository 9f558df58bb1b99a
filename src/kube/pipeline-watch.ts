import {
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { realScheduler, type Scheduler } from '../clock.js';
import { failureSummary } from './errors.js';
import type { KubeCalls } from './request-options.js';
import { PIPELINE } from './resources.js';
import { KubeApiError, KubeRest, resourcePath, type Query } from './rest.js';
import type { KubeObject } from './ports.js';

/** What the watcher reports; the index and the reconciler subscribe through this. */
export interface PipelineEventHandler {
  /** An added or changed Pipeline, as received: nothing else holds it. */
  upsert(pipeline: KubeObject): void;
  remove(namespace: string, name: string): void;
  /** A watch failed; it restarts by itself after `retryInMs`. */
  error(message: string, retryInMs: number): void;
  /** A watch that had failed is watching again: the management API answers again. */
  resumed(): void;
}

/**
 * Makes the informer of one LIST+WATCH path: one that keeps no cache of the objects (the
 * catalog's VersionListWatch; a fake in tests), since the handler's owner is the one cache.
 * Its WATCH sends `labelSelector` when given; `list` already does.
 */
export type InformerFactory = (
  path: string,
  list: () => Promise<KubernetesListObject<KubernetesObject>>,
  labelSelector?: string,
) => Informer<KubernetesObject>;

/** What a PipelineWatcher is given besides its cluster: its informers, and clocks. */
export interface PipelineWatcherOptions {
  scheduler?: Scheduler;
  informers: InformerFactory;
  /**
   * Only Pipelines with these labels (a shard's, kubectl's text form), selected by the API
   * server: the others are never sent, so a shard holds and parses only its own.
   */
  labelSelector?: string | undefined;
  /** GETs one LIST page of Pipelines, the API server's JSON (rest.ts's KubeRest; fakes in tests). */
  pages?: (path: string, query: Query) => Promise<unknown>;
}

/** One informer and its restart bookkeeping. */
interface Watch {
  informer: Informer<KubernetesObject>;
  /** Failures since it last connected: they set the next restart's delay. */
  failures: number;
  /** Errors reported so far: a start during which this moved did not connect. */
  errors: number;
}

/**
 * The longest wait before a failed informer is started again. Short, because a watch that
 * connects again is how a replica notices that the management API is back (claimed promotions
 * are re-checked then), and a WATCH attempt every 2 s costs about what the Lease's renewals do.
 */
const RESTART_MAX_MS = 2_000;

/** The wait before restarting after the `failures`-th failure in a row: 1 s, then 2 s. */
function restartDelay(failures: number): number {
  return Math.min(RESTART_MAX_MS, 500 * 2 ** Math.min(failures, 6));
}

/**
 * Watches Pipelines in the management cluster (all namespaces, or each configured one) with
 * informers, restarting a failed informer with capped exponential backoff, and
 * says when one that had failed is watching again.
 */
export class PipelineWatcher {
  private readonly informers: Informer<KubernetesObject>[] = [];
  private readonly pendingRestarts = new Set<() => void>();
  private readonly syncedInformers = new Set<Informer<KubernetesObject>>();
  /** Informers whose latest list succeeded (a started informer may have failed its list). */
  private readonly listed = new Set<Informer<KubernetesObject>>();
  private problem: string | undefined;
  private stopped = false;
  private readonly scheduler: Scheduler;
  private readonly makeInformer: InformerFactory;
  private readonly labelSelector: string | undefined;
  private readonly pages: (path: string, query: Query) => Promise<unknown>;

  constructor(
    kubeConfig: KubeConfig,
    private readonly namespaces: readonly string[],
    private readonly handler: PipelineEventHandler,
    calls: KubeCalls,
    options: PipelineWatcherOptions,
  ) {
    this.scheduler = options.scheduler ?? realScheduler;
    this.labelSelector = options.labelSelector;
    const rest = new KubeRest(kubeConfig, calls);
    this.pages = options.pages ?? ((path, query) => rest.get(path, query));
    this.makeInformer = options.informers;
  }

  /** Starts every informer; resolves once each has listed (or failed and scheduled a retry). */
  async start(): Promise<void> {
    const scopes = this.namespaces.length === 0 ? [undefined] : this.namespaces;
    await Promise.all(scopes.map((ns) => this.startOne(ns)));
  }

  /** True once every informer's latest list succeeded and its watch has not failed since. */
  synced(): boolean {
    return this.informers.length > 0 && this.syncedInformers.size === this.informers.length;
  }

  /** Why the Pipelines are not loaded (secret-free), or undefined once they are. */
  notLoadedBecause(): string | undefined {
    return this.synced() ? undefined : this.problem;
  }

  /** Stops all informers and pending restarts. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.pendingRestarts) cancel();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  private async startOne(namespace: string | undefined): Promise<void> {
    const path = resourcePath(PIPELINE, namespace);
    // The informer reports 'connect' before it lists and its start() resolves even when the
    // list failed, so "loaded" is only what a successful list says.
    const page = (token: string | undefined): Promise<unknown> =>
      this.pages(path, {
        limit: PIPELINE_PAGE,
        continue: token,
        labelSelector: this.labelSelector,
      });
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      this.listed.delete(informer);
      const result = await listAllPages(page);
      this.listed.add(informer);
      return result;
    };
    const informer = this.makeInformer(path, list, this.labelSelector);
    const watch: Watch = { informer, failures: 0, errors: 0 };
    this.informers.push(informer);
    const onObject = (obj: KubernetesObject) => {
      this.handler.upsert(withKind(obj));
    };
    informer.on('add', onObject);
    informer.on('update', onObject);
    informer.on('delete', (obj) => {
      this.handler.remove(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
    });
    informer.on('error', (err: unknown) => {
      this.syncedInformers.delete(informer);
      // stop() aborts the watch, which the informer reports as an error: not worth a restart.
      if (this.stopped) return;
      watch.errors += 1;
      watch.failures += 1;
      const retryIn = restartDelay(watch.failures);
      this.failed(err, retryIn);
      this.restartLater(watch, retryIn);
    });
    const errors = watch.errors;
    try {
      await informer.start();
      this.connected(watch, errors);
    } catch (err) {
      this.failed(err, restartDelay(1));
      this.restartLater(watch, restartDelay(1));
    }
  }

  /**
   * After a start resolved: whether the informer is listed and watching, and if so marks it
   * synced. start() resolves even when its list or watch failed: that was reported through
   * 'error' (which has scheduled the next restart), so errors reported during it mean no.
   */
  private connected(watch: Watch, errorsBefore: number): boolean {
    if (watch.errors !== errorsBefore || !this.listed.has(watch.informer)) return false;
    watch.failures = 0;
    this.syncedInformers.add(watch.informer);
    if (this.synced()) this.problem = undefined;
    return true;
  }

  private failed(err: unknown, retryInMs: number): void {
    this.problem = describe(err);
    this.handler.error(this.problem, retryInMs);
  }

  private restartLater(watch: Watch, ms: number): void {
    if (this.stopped) return;
    const pending = this.scheduler.setTimer(ms, () => {
      this.pendingRestarts.delete(pending);
      if (this.stopped) return;
      const errors = watch.errors;
      watch.informer.start().then(
        () => {
          if (this.connected(watch, errors)) this.handler.resumed();
        },
        (err: unknown) => {
          this.failed(err, ms);
          this.restartLater(watch, Math.min(RESTART_MAX_MS, ms * 2));
        },
      );
    });
    this.pendingRestarts.add(pending);
  }
}

const PIPELINE_API_VERSION = `${PIPELINE.group}/${PIPELINE.version}`;

/** The object with apiVersion and kind set (a LIST's items may lack them), in place. */
function withKind(obj: KubernetesObject): KubeObject {
  obj.apiVersion = PIPELINE_API_VERSION;
  obj.kind = 'Pipeline';
  return obj as KubeObject;
}

/** One secret-free sentence: what failed, what the cluster said, and its classified reason. */
function describe(err: unknown): string {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  const summary =
    typeof status === 'number' && status >= 400
      ? { ...failureSummary(new KubeApiError(status, '')), status }
      : failureSummary(err);
  const answered = summary.status === undefined ? '' : ` (HTTP ${String(summary.status)})`;
  return `listing or watching Pipelines in the management cluster failed: ${summary.message}${answered}, reason ${summary.reason}`;
}

/**
 * Pipelines per LIST page: a fleet's thousands of Pipelines arrive in pages, so no single
 * response (and its text, and its parse) holds them all at once.
 */
const PIPELINE_PAGE = 500;

/** A LIST page as the API server sends it. */
type PageOf<T extends KubernetesObject> = Omit<KubernetesListObject<T>, 'metadata'> & {
  metadata?: KubernetesListObject<T>['metadata'] & { continue?: string };
};

/**
 * Every page of a paged LIST (`limit`/`continue`), as one list with the snapshot's
 * resourceVersion, which all pages share and the watch starts from.
 */
export async function listAllPages(
  page: (token: string | undefined) => Promise<unknown>,
): Promise<KubernetesListObject<KubernetesObject>> {
  const items: KubernetesObject[] = [];
  let first: KubernetesListObject<KubernetesObject> | undefined;
  let token: string | undefined;
  do {
    const current = (await page(token)) as PageOf<KubernetesObject>;
    first ??= current;
    for (const item of current.items) items.push(item);
    token = current.metadata?.continue ?? current.metadata?._continue;
  } while (token !== undefined && token !== '');
  return { ...first, items };
}
