/**
 * The web view's listener (docs/ui.md), when `ui` is configured: the view's own fastify app
 * (ui/app.ts) over the catalog's watched Pipelines and the reconciler's views, told of every
 * change to either. It reads only what every replica has, so any replica serves it.
 */
import type { PipelineCatalog } from '../catalog/catalog.js';
import type { Reconciler } from '../reconcile/reconciler.js';
import { buildUi, type UiApp } from '../ui/app.js';
import type { FleetSource } from '../ui/fleet-rows.js';
import { uiMetrics } from '../ui/ui-metrics.js';
import type { Runtime } from './runtime.js';
import type { PipelinePreviews } from '../preview/pipeline-previews.js';
import type { TrainBook } from '../trains/train-book.js';

/** The view as the gateway runs it: listen on `ui.port` (on `host`), its address, close. */
export interface UiListener {
  listen(host: string): Promise<string | undefined>;
  address(): string | undefined;
  close(): Promise<void>;
}

/** The fleet as the view reads it: the catalog's Pipelines and this replica's latest views. */
export function fleetSource(
  catalog: PipelineCatalog,
  reconciler: Reconciler,
  previews?: Pick<PipelinePreviews, 'previewOf'>,
  trains?: Pick<TrainBook, 'all' | 'onChange'>,
): FleetSource {
  return {
    ...(previews === undefined ? {} : { preview: (id, env) => previews.previewOf(id, env) }),
    ...(trains === undefined
      ? {}
      : { trains: () => trains.all(), onTrains: (listener) => trains.onChange(listener) }),
    ids: () => catalog.ids(),
    pipeline: (id) => catalog.get(id),
    environments: (id) => catalog.environments(id),
    view: (id) => reconciler.view(id),
    subscribe: (listener) => {
      const stopCatalog = catalog.onChange(listener);
      const stopViews = reconciler.onView(listener);
      return () => {
        stopCatalog();
        stopViews();
      };
    },
  };
}

/** The view's listener; one that does nothing when `ui` is not configured. */
export function uiListener(
  rt: Runtime,
  catalog: PipelineCatalog,
  reconciler: Reconciler,
  previews?: Pick<PipelinePreviews, 'previewOf'>,
  trains?: Pick<TrainBook, 'all' | 'onChange'>,
): UiListener {
  const { config } = rt;
  const ui = config.ui;
  const metrics = ui === undefined ? undefined : uiMetrics(rt.metrics.registry);
  let built: UiApp | undefined;
  let address: string | undefined;
  return {
    listen: async (host) => {
      if (ui === undefined || built !== undefined) return address;
      const source = fleetSource(catalog, reconciler, previews, trains);
      built = await buildUi({
        config: { ...config, ui },
        logger: rt.logger,
        source,
        scheduler: rt.scheduler,
        ...(metrics === undefined ? {} : { metrics }),
      });
      address = await built.app.listen({ host, port: ui.port });
      return address;
    },
    address: () => address,
    close: async () => {
      await built?.app.close();
    },
  };
}
