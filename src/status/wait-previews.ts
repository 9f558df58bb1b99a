/**
 * The preview a wait for an approval is recorded with (`waitingApproval.preview`), so that the
 * WaitingForApproval event, decided once in the status write that first records the wait,
 * carries the change's digest and summary. A view write waits for it a bounded time: a forge
 * that is slow or down must not hold the verified view back, so such a wait is recorded without
 * one (a later write adds it to the status; the event already went as recorded). Asks are
 * shared while one runs and not repeated for a while after one found nothing, so a forge that
 * is down is not asked on every write.
 */
import type { Scheduler } from '../clock.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';

/** What a wait records of its preview: the change's digest and its one-line summary. */
export interface WaitPreview {
  digest: string;
  summary: string;
}

/** The pending promotion a wait is about: its environment, revision and attempt. */
export interface PendingWait {
  environment: string;
  revision: string;
  attempt: number;
}

/** Previews of pending promotions (src/preview, wired in wiring/loop.ts). */
export interface WaitPreviewSource {
  /** The preview of promoting `wait.revision` now; undefined when the change cannot be known. */
  previewOf(pipeline: Pipeline, wait: PendingWait): Promise<WaitPreview | undefined>;
}

/** How long a view write waits for a preview before it records the wait without one. */
export const WAIT_PREVIEW_MS = 3_000;
/** How long after an ask that found nothing the same wait is not asked about again. */
export const WAIT_PREVIEW_RETRY_MS = 60_000;
/** The most asks remembered; the oldest are forgotten first. */
const MAX_ASKS = 1_000;

interface Ask {
  answer: Promise<WaitPreview | undefined>;
  /** Set once the ask settled: undefined while it runs. */
  settled?: { preview: WaitPreview | undefined; at: number };
}

/** The previews views record waits with; see the module comment. */
export class WaitPreviews {
  private readonly asks = new Map<string, Ask>();

  constructor(
    private readonly source: WaitPreviewSource,
    private readonly clock: Pick<Scheduler, 'now' | 'setTimer'>,
    private readonly waitMs = WAIT_PREVIEW_MS,
    private readonly retryMs = WAIT_PREVIEW_RETRY_MS,
  ) {}

  /**
   * The previews of `waits`, by environment, each as known within the bounded wait; a wait
   * whose preview is not known by then (or was not found lately) is left out.
   */
  async previewsOf(
    pipeline: Pipeline,
    waits: readonly PendingWait[],
  ): Promise<Record<string, WaitPreview & { revision: string }>> {
    const found: Record<string, WaitPreview & { revision: string }> = {};
    const answers = waits.map(async (wait) => {
      const preview = await this.within(this.ask(pipeline, wait));
      if (preview !== undefined) found[wait.environment] = { ...preview, revision: wait.revision };
    });
    await Promise.all(answers);
    return found;
  }

  private ask(pipeline: Pipeline, wait: PendingWait): Promise<WaitPreview | undefined> {
    const { namespace, name, generation } = pipeline.metadata;
    const key = JSON.stringify([namespace, name, generation, wait]);
    const known = this.asks.get(key);
    if (known !== undefined && !this.due(known)) return known.answer;
    const ask: Ask = {
      answer: this.source.previewOf(pipeline, wait).then(
        (preview) => this.settle(ask, preview),
        () => this.settle(ask, undefined),
      ),
    };
    this.asks.delete(key);
    this.asks.set(key, ask);
    for (const oldest of this.asks.keys()) {
      if (this.asks.size <= MAX_ASKS) break;
      this.asks.delete(oldest);
    }
    return ask.answer;
  }

  /** Whether a remembered ask should be made again: it found nothing, long enough ago. */
  private due(ask: Ask): boolean {
    const settled = ask.settled;
    if (settled === undefined || settled.preview !== undefined) return false;
    return this.clock.now() - settled.at >= this.retryMs;
  }

  private settle(ask: Ask, preview: WaitPreview | undefined): WaitPreview | undefined {
    ask.settled = { preview, at: this.clock.now() };
    return preview;
  }

  /** `answer` if it settles within the bounded wait, else undefined. */
  private within(answer: Promise<WaitPreview | undefined>): Promise<WaitPreview | undefined> {
    return new Promise((resolve) => {
      const cancel = this.clock.setTimer(this.waitMs, () => {
        resolve(undefined);
      });
      void answer.then((preview) => {
        cancel();
        resolve(preview);
      });
    });
  }
}
