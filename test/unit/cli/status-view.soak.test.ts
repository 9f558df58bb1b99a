import { describe, expect, it } from 'vitest';
import { renderDetail } from '../../../src/cli/status-view.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

describe('promotion-gateway status, one Pipeline in detail', () => {
  it('shows since when an environment a soak waits on has run its revision healthy', () => {
    const pipeline = samplePipeline({
      environments: {
        dev: { healthySince: { revision: '6.6.0', time: '2026-11-25T10:00:00.123Z' } },
        staging: {},
      },
    });
    const text = renderDetail(pipeline, Date.parse('2026-11-25T10:10:00Z'));
    expect(text).toContain('  dev: ');
    expect(text).toContain('    healthy at 6.6.0 since 2026-11-25T10:00:00.123Z (soak)');
    expect(text.match(/\(soak\)/g)).toHaveLength(1);
  });
});
