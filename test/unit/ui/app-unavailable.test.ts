/**
 * The view's error handler maps failures as the API does: a Kubernetes API that cannot serve
 * a request is a 503 page with Retry-After, a bug a 500 page; neither shows the failure's text.
 */
import { ApiException } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realScheduler } from '../../../src/clock.js';
import { defaultConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { buildUi, type UiApp } from '../../../src/ui/app.js';
import type { PipelineId } from '../../../src/pipeline/id.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { FakeFleetSource } from '../../support/ui-fleet.js';

/** A fleet whose Pipeline lookups throw `failure` while it is set. */
class FailingSource extends FakeFleetSource {
  failure: Error | undefined;

  override pipeline(id: PipelineId): Pipeline | undefined {
    if (this.failure !== undefined) throw this.failure;
    return super.pipeline(id);
  }
}

const source = new FailingSource();
const lines: Record<string, unknown>[] = [];
let ui: UiApp;
let url: string;

beforeAll(async () => {
  source.put({ namespace: 'team-a', name: 'shop', revision: '1.2.3' });
  const config = defaultConfig({ ui: { port: 0, anonymous: true } });
  if (config.ui === undefined) throw new Error('no ui');
  const logger = createLogger('info', {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  ui = await buildUi({
    config: { ...config, ui: config.ui },
    logger,
    source,
    scheduler: realScheduler,
  });
  url = await ui.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await ui.app.close();
});

async function pageWhileFailing(failure: Error): Promise<Response> {
  source.failure = failure;
  try {
    return await fetch(`${url}/pipelines/team-a/shop`);
  } finally {
    source.failure = undefined;
  }
}

describe('the view when what it reads fails', () => {
  it('answers an unreachable Kubernetes API with a 503 page and Retry-After, logged at warn', async () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:6443'), {
      code: 'ECONNREFUSED',
    });
    const res = await pageWhileFailing(unreachable);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const text = await res.text();
    expect(text).toContain('HTTP 503 · Unavailable');
    expect(text).not.toContain('10.0.0.7');
    const line = lines.find((l) => l.msg === 'request failed: a Kubernetes API is unavailable');
    expect(line).toMatchObject({ level: 40, reason: 'Unavailable' });
    // The same page answers once the lookup works again.
    expect((await fetch(`${url}/pipelines/team-a/shop`)).status).toBe(200);
  });

  it('answers a 503 from the API server the same way', async () => {
    const res = await pageWhileFailing(new ApiException(503, 'HTTP-Code: 503', '', {}));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it('keeps a bug a 500 page without Retry-After, logged at error', async () => {
    const res = await pageWhileFailing(new TypeError('spec is undefined'));
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.text()).not.toContain('spec is undefined');
    expect(lines.find((l) => l.msg === 'view request failed')).toMatchObject({ level: 50 });
  });
});
