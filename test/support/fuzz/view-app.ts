/**
 * The web view in process, on a real socket, over a synthetic fleet whose every read is
 * counted (a page, a stream or a Pipeline lookup), so a fuzzer can tell that nothing was read
 * for a request before its token was checked.
 */
import { realScheduler } from '../../../src/clock.js';
import { createLogger } from '../../../src/log.js';
import type { PipelineId } from '../../../src/pipeline/id.js';
import { buildUi } from '../../../src/ui/app.js';
import { testConfig } from '../ingress-harness.js';
import { FakeFleetSource } from '../ui-fleet.js';
import {
  logSink,
  doorKeys,
  secretsOf,
  LEGACY_KEY,
  PIPELINE,
  type DoorContext,
  type Recorder,
} from './doors-app.js';

/** The Pipelines the view shows. */
export const VIEW_PIPELINES = ['apps/podinfo', 'team-a/web'] as const;

/** A FleetSource that counts what it is asked. */
class CountingSource extends FakeFleetSource {
  constructor(private readonly recorder: Recorder) {
    super();
  }

  override ids(): readonly PipelineId[] {
    this.recorder.reads++;
    return super.ids();
  }

  override pipeline(id: PipelineId) {
    this.recorder.reads++;
    return super.pipeline(id);
  }

  override view(id: PipelineId) {
    this.recorder.reads++;
    return super.view(id);
  }
}

/** The running view, the keys its readers' tokens are signed with, and what it read. */
export interface ViewApp {
  port: number;
  context: DoorContext;
  recorder: Recorder;
  secrets: string[];
  logs: string[];
  close(): Promise<void>;
}

/** Starts the view on 127.0.0.1:<ephemeral>; `anonymous` is the demo's switch. */
export async function startView(anonymous = false): Promise<ViewApp> {
  const keys = doorKeys();
  const context: DoorContext = { keys, pipeline: PIPELINE, legacyKey: LEGACY_KEY, clusters: [] };
  const recorder: Recorder = { effects: [], reads: 0 };
  const source = new CountingSource(recorder);
  for (const id of VIEW_PIPELINES) {
    const [namespace = '', name = ''] = id.split('/');
    source.put({ namespace, name, waiting: true });
  }
  const logs: string[] = [];
  const base = testConfig(keys.api.publicPem);
  const config = { ...base, ui: { port: 0, anonymous, maxStreams: 64 } };
  const { app } = await buildUi({
    config,
    logger: createLogger('debug', logSink(logs)),
    source,
    scheduler: realScheduler,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  recorder.reads = 0;
  return {
    port: address.port,
    context,
    recorder,
    secrets: secretsOf(context),
    logs,
    close: () => app.close(),
  };
}
