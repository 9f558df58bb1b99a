/**
 * `promotion-gateway status` shows each environment's policy gates from the Pipeline as stored
 * (its spec, status.halts, the stored healthy-since and its own windows) at the reader's clock:
 * a POLICY column in the table (only when some environment has a gate), a `policy:` line in the
 * detail view, and the structured view in --json, where the checks carry no result (the status
 * keeps none) and are never said to hold.
 */
import { describe, expect, it } from 'vitest';
import { storedEvaluator, storedPolicyOf } from '../../../src/cli/status-policy.js';
import { environmentRows, renderDetail, renderTable } from '../../../src/cli/status-view.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

const NOW = Date.parse('2026-11-25T10:10:30Z');
const ref = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' };
const ready = (revision: string) => ({
  clusterAppRef: ref,
  ready: true,
  revision,
  observedTime: '2026-11-25T09:59:00.000Z',
});

/** dev at 6.6.0 healthy since 10:00; staging soaks 30m and has a check; prod is frozen and halted. */
function gated(): Pipeline {
  const status: PipelineStatus = {
    environments: {
      dev: {
        targets: [ready('6.6.0'), ready('6.6.0')],
        healthySince: { revision: '6.6.0', time: '2026-11-25T10:00:00.123Z' },
      },
      staging: { targets: [ready('6.5.0')] },
      prod: { targets: [ready('6.5.0')] },
    },
    halts: [
      {
        id: 'h1',
        environment: 'prod',
        principal: 'alice',
        kind: 'human',
        reason: 'incident 42',
        time: '2026-11-25T09:00:00Z',
        expiresAt: '2026-11-26T08:00:00Z',
      },
    ],
  };
  const pipeline = samplePipeline(status);
  const [, staging, prod] = pipeline.spec.environments;
  if (staging === undefined || prod === undefined) throw new Error('no staging or prod');
  staging.promotion = {
    strategy: { notification: {} },
    soak: { duration: '30m' },
    checks: [{ name: 'e2e', http: { url: 'https://ci.example.com/x?token=s3cret' } }],
  };
  prod.promotion = {
    manual: true,
    strategy: { notification: {} },
    windows: [
      {
        name: 'freeze',
        type: 'Deny',
        rrule: 'DTSTART:20261125T090000\nRRULE:FREQ=DAILY',
        timeZone: 'UTC',
        duration: '2h',
      },
    ],
  };
  return pipeline;
}

describe('promotion-gateway status: policy gates', () => {
  it('adds a POLICY column with one line per gated environment', () => {
    const rows = environmentRows([gated()], NOW);
    expect(rows.map((r) => [r.environment, r.policy])).toEqual([
      ['dev', undefined],
      ['staging', 'soak 20m left; 1 check'],
      [
        'prod',
        'halted by alice until 2026-11-26T08:00:00Z (incident 42); window closed, opens 2026-11-25T11:00:00Z',
      ],
    ]);
    const lines = renderTable(rows).split('\n');
    expect(lines[0]).toMatch(
      /^NAMESPACE +PIPELINE +ENVIRONMENT +REVISION +READY +STATE +POLICY +PULL REQUEST$/,
    );
    const column = lines[0]?.indexOf('POLICY');
    expect(lines[2]?.slice(column)).toMatch(/^soak 20m left; 1 check$/);
  });

  it('leaves the table as it was when no environment has a gate', () => {
    const plain = samplePipeline({ environments: { dev: { targets: [ready('6.6.0')] } } });
    const rows = environmentRows([plain], NOW);
    expect(rows.every((r) => !('policy' in r))).toBe(true);
    expect(renderTable(rows)).not.toContain('POLICY');
    expect(renderDetail(plain, NOW)).not.toContain('policy:');
    expect(storedPolicyOf(plain, storedEvaluator(NOW))).toBeUndefined();
  });

  it('prints a policy line under each gated environment of the detail view', () => {
    const text = renderDetail(gated(), NOW);
    expect(text).toContain('  staging: ');
    expect(text).toContain('    policy: soak 20m left; 1 check\n');
    expect(text).toContain(
      '    policy: halted by alice until 2026-11-26T08:00:00Z (incident 42); window closed, opens 2026-11-25T11:00:00Z\n',
    );
  });

  it('gives the structured view for --json, checks without a result and never holding', () => {
    const views = storedPolicyOf(gated(), storedEvaluator(NOW));
    expect(views?.staging).toEqual({
      revision: '6.6.0',
      holding: ['soak'],
      soak: {
        duration: '30m',
        upstream: 'dev',
        healthySince: '2026-11-25T10:00:00.123Z',
        endsAt: '2026-11-25T10:30:00.123Z',
        left: '19m31s',
      },
      checks: [{ name: 'e2e', kind: 'http' }],
    });
    expect(views?.prod).toMatchObject({
      revision: '6.5.0',
      holding: ['halts', 'window'],
      halts: [{ id: 'h1', principal: 'alice', until: '2026-11-26T08:00:00Z' }],
      window: { open: false, reason: 'InDenyWindow', nextOpening: '2026-11-25T11:00:00Z' },
    });
    expect(JSON.stringify(views)).not.toContain('s3cret');
  });
});
