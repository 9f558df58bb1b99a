/**
 * The fleet as last rendered: each Pipeline's row (its summary and HTML) and the change number
 * at which the row last changed, so a page and a live stream can agree on "everything up to N"
 * and a stream sends only rows whose HTML changed after N. A notification that changes nothing
 * on the page (a re-check finding the same state) changes no row and sends nothing. Rows are
 * rendered once per change for every viewer; who may see which is the stream's business.
 */
import type { PreviewAnswer } from '../preview/pipeline-previews.js';
import type { PipelineId } from '../pipeline/id.js';
import type { Pipeline } from '../pipeline/pipeline-resource.js';
import type { PipelineView } from '../reconcile/view.js';
import type { PromotionTrain } from '../trains/train-resource.js';
import { columnPlan, type ColumnPlan } from './columns.js';
import { fleetRow } from './fleet-page.js';
import type { SafeHtml } from './html.js';
import { summarize, type PipelineSummary } from './model.js';

/** Where the view reads the fleet: the watched Pipelines and this replica's latest views. */
export interface FleetSource {
  /** Every Pipeline's id, sorted. */
  ids(): readonly PipelineId[];
  /** The Pipeline's state (catalog/pipeline-state.ts): metadata, spec and status. */
  pipeline(id: PipelineId): Pipeline | undefined;
  /** The names of the Pipeline's environments, in spec order; cheap enough for every row. */
  environments(id: PipelineId): readonly string[] | undefined;
  view(id: PipelineId): PipelineView | undefined;
  /** Calls `listener` with the id of a Pipeline whose object or view changed; returns an unsubscribe. */
  subscribe(listener: (id: PipelineId) => void): () => void;
  /** The preview of an environment's pending promotion (src/preview); absent: not shown. */
  preview?(id: PipelineId, environment: string): Promise<PreviewAnswer>;
  /** The release trains as last listed (src/trains); absent: none shown. */
  trains?(): readonly PromotionTrain[];
  /** Calls `listener` when the trains changed; returns an unsubscribe. */
  onTrains?(listener: () => void): () => void;
}

/** One rendered row. */
export interface RowEntry {
  summary: PipelineSummary;
  html: SafeHtml;
  /** The change number at which this HTML was first rendered. */
  seq: number;
}

/** Removed Pipelines remembered, so a stream that missed the removal still hears of it. */
const MAX_TOMBSTONES = 10_000;

/** What changed since a change number. */
export interface RowsSince {
  /** The stream must be sent every row (its number is from before a plan change, or forgotten). */
  complete: boolean;
  /** Rows changed or removed after it (all rows when complete). */
  ids: PipelineId[];
}

/** The rendered fleet. */
export class FleetRows {
  private readonly rows = new Map<PipelineId, RowEntry>();
  private readonly removed = new Map<PipelineId, number>();
  private sorted: PipelineId[] = [];
  private current: ColumnPlan = columnPlan([]);
  private seq = 0;
  private planSeq = 0;
  private forgottenBefore = 0;

  constructor(private readonly source: FleetSource) {}

  /** The number of the latest change. */
  get sequence(): number {
    return this.seq;
  }

  /** The column plan the rows are rendered for. */
  get plan(): ColumnPlan {
    return this.current;
  }

  /** Every Pipeline's id, sorted. */
  ids(): readonly PipelineId[] {
    return this.sorted;
  }

  entry(id: PipelineId): RowEntry | undefined {
    return this.rows.get(id);
  }

  /**
   * Renders the rows of `dirty` (every row when `all`, or when the column plan changed) and
   * answers which rows changed or went away, and whether the plan changed.
   */
  refresh(
    dirty: Iterable<PipelineId>,
    all = false,
  ): { changed: PipelineId[]; planChanged: boolean } {
    const ids = this.source.ids();
    const plan = columnPlan(ids.map((id) => this.source.environments(id) ?? []));
    const planChanged = plan.key !== this.current.key;
    this.current = plan;
    const next = this.seq + 1;
    const changed: PipelineId[] = [];
    const targets = planChanged || all ? new Set([...ids, ...this.rows.keys()]) : dirty;
    for (const id of targets) {
      if (this.render(id, next, planChanged)) changed.push(id);
    }
    if (changed.length > 0 || planChanged) {
      this.seq = next;
      if (planChanged) this.planSeq = next;
      this.sorted = [...ids];
    }
    return { changed: [...new Set(changed)], planChanged };
  }

  /** What changed after change number `since` (undefined: a stream that knows nothing). */
  since(since: number | undefined): RowsSince {
    if (
      since === undefined ||
      since < this.planSeq ||
      since < this.forgottenBefore ||
      since > this.seq
    )
      return { complete: true, ids: [...this.sorted] };
    const ids = [...this.rows.entries()].filter(([, e]) => e.seq > since).map(([id]) => id);
    for (const [id, seq] of this.removed) if (seq > since) ids.push(id);
    return { complete: false, ids };
  }

  private render(id: PipelineId, seq: number, force: boolean): boolean {
    const pipeline = this.source.pipeline(id);
    const previous = this.rows.get(id);
    if (pipeline === undefined) {
      if (previous === undefined) return false;
      this.rows.delete(id);
      this.tombstone(id, seq);
      return true;
    }
    const summary = summarize(pipeline, this.source.view(id));
    const html = fleetRow(summary, this.current);
    if (!force && previous?.html.text === html.text) {
      previous.summary = summary;
      return false;
    }
    this.removed.delete(id);
    this.rows.set(id, { summary, html, seq });
    return true;
  }

  private tombstone(id: PipelineId, seq: number): void {
    this.removed.set(id, seq);
    if (this.removed.size <= MAX_TOMBSTONES) return;
    const [oldest] = this.removed;
    if (oldest === undefined) return;
    this.removed.delete(oldest[0]);
    this.forgottenBefore = Math.max(this.forgottenBefore, oldest[1]);
  }
}
