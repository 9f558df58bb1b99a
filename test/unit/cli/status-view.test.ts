/**
 * The operator's table and detail view, from Pipelines as stored: one row per environment, in
 * spec order, saying what runs, how much of it is ready, what it waits for and the open pull
 * request; a Pipeline never checked says so instead of inventing a state.
 */
import { describe, expect, it } from 'vitest';
import { environmentRows, renderDetail, renderTable } from '../../../src/cli/status-view.js';
import type { Pipeline, PipelineStatus } from '../../../src/pipeline/pipeline-resource.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

/** The reader's clock, which policy gates count from (these Pipelines have none). */
const NOW = Date.parse('2026-11-25T12:00:00Z');
const ref = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' };
const ready = (revision: string) => ({ clusterAppRef: ref, ready: true, revision });

const status: PipelineStatus = {
  conditions: [
    {
      type: 'PromotionPending',
      status: 'True',
      reason: 'WaitingApproval',
      message: 'prod: waiting for 1 more approval',
      lastTransitionTime: '2026-11-25T10:00:00Z',
    },
  ],
  environments: {
    dev: { targets: [ready('6.6.0'), ready('6.6.0')] },
    staging: {
      targets: [
        { clusterAppRef: ref, ready: false, revision: '6.5.0', error: 'Stalled: upgrade failed' },
      ],
    },
    prod: {
      targets: [{ ...ready('6.5.0'), observedTime: '2026-11-25T10:00:00.123Z' }],
      waitingApproval: { revision: '6.6.0' },
      approvals: [
        {
          principal: 'alice',
          kind: 'human',
          decision: 'approve',
          revision: '6.6.0',
          time: '2026-11-25T10:01:00Z',
          jti: 'j-1',
        },
      ],
      promotion: {
        revision: '6.5.0',
        lastAttemptedTime: '2026-11-24T10:00:00Z',
        succeeded: true,
        phase: 'Succeeded',
        pullRequest: { url: 'https://github.com/acme/fleet/pull/7', state: 'open' },
      },
    },
  },
};

function named(namespace: string, name: string, s?: PipelineStatus): Pipeline {
  const p = samplePipeline(s);
  return { ...p, metadata: { ...p.metadata, namespace, name } };
}

describe('status view', () => {
  it('has one row per environment in spec order, Pipelines sorted by namespace and name', () => {
    const rows = environmentRows([named('b', 'z', status), named('a', 'y')], NOW);
    expect(rows.map((r) => `${r.namespace}/${r.pipeline}/${r.environment}`)).toEqual([
      'a/y/dev',
      'a/y/staging',
      'a/y/prod',
      'b/z/dev',
      'b/z/staging',
      'b/z/prod',
    ]);
    expect(rows[0]).toMatchObject({ revision: '-', ready: '0/2', state: 'not checked yet' });
    expect(rows.slice(3)).toMatchObject([
      { revision: '6.6.0', ready: '2/2', state: 'up to date' },
      { revision: '6.5.0', ready: '0/1', state: 'not ready: Stalled: upgrade failed' },
      {
        ready: '1/1',
        state: 'waiting for approval of 6.6.0, approved by alice',
        pullRequest: 'https://github.com/acme/fleet/pull/7 (open)',
      },
    ]);
  });

  it('aligns the table in columns and says when there is nothing', () => {
    const table = renderTable(environmentRows([named('apps', 'podinfo', status)], NOW));
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^NAMESPACE +PIPELINE +ENVIRONMENT +REVISION +READY +STATE +PULL REQUEST$/,
    );
    const stateColumn = lines[0]?.indexOf('STATE');
    for (const line of lines.slice(1)) expect(line.slice(stateColumn).length).toBeGreaterThan(0);
    expect(lines[3]?.slice(stateColumn)).toMatch(/^waiting for approval of 6\.6\.0/);
    expect(renderTable([])).toBe('No Pipelines found.\n');
  });

  it('details conditions, targets with their verification time, approvals and the last promotion', () => {
    const text = renderDetail(named('apps', 'podinfo', status), NOW);
    expect(text).toContain('Pipeline apps/podinfo (HelmRelease podinfo)');
    expect(text).toContain(
      'PromotionPending: True (WaitingApproval) prod: waiting for 1 more approval',
    );
    expect(text).toContain('prod/podinfo: 6.5.0, ready, verified 2026-11-25T10:00:00.123Z');
    expect(text).toContain('approve 6.6.0 by alice (human) at 2026-11-25T10:01:00Z, id j-1');
    expect(text).toContain('pull request https://github.com/acme/fleet/pull/7 (open)');
  });

  it('shows a rollback with who and why, and the hold it set until it is lifted', () => {
    const rolledBack = named('apps', 'podinfo', {
      environments: {
        prod: {
          targets: [ready('6.5.0')],
          promotion: {
            revision: '6.5.0',
            lastAttemptedTime: '2026-11-25T11:00:00Z',
            phase: 'Succeeded',
            succeeded: true,
            rollback: { from: '6.6.0', by: ['alice'], reason: 'errors up' },
          },
          holds: [
            { revision: '6.6.0', reason: 'RolledBack', by: 'alice', time: '2026-11-25T11:00:00Z' },
            {
              ...{
                revision: '6.4.0',
                reason: 'RolledBack',
                by: 'bob',
                time: '2026-11-20T11:00:00Z',
              },
              ...{ liftedAt: '2026-11-21T11:00:00Z', liftedBy: 'bob' },
            },
          ],
        },
      },
    });
    const text = renderDetail(rolledBack, NOW);
    expect(text).toContain('prod: rollback from 6.6.0 to 6.5.0: Succeeded');
    expect(text).toContain('rollback from 6.6.0 by alice: errors up');
    expect(text).toContain('held: 6.6.0 (RolledBack by alice at 2026-11-25T11:00:00Z');
    expect(text).not.toContain('held: 6.4.0');
  });

  it('shows a hostile revision escaped and bounded, never as terminal control text', () => {
    const hostile = named('apps', 'x', {
      environments: { dev: { targets: [ready(`6.6.0\u001b[2J${'9'.repeat(500)}`)] } },
    });
    const [row] = environmentRows([hostile], NOW);
    expect(row?.revision).not.toContain('\u001b');
    expect(row?.revision.length).toBeLessThanOrEqual(80);
  });
});
