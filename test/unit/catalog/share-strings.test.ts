import { describe, expect, it } from 'vitest';
import { StringTable } from '../../../src/catalog/share-strings.js';

function pipelineJson(name: string): string {
  const target = (cluster: string) => ({
    namespace: 'apps',
    clusterRef: { kind: 'GitopsCluster', name: cluster, namespace: 'flux-system' },
  });
  return JSON.stringify({
    metadata: { name, namespace: 'team', uid: `uid-${name}` },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      environments: [{ name: 'dev', targets: [target('c1'), target('c2')] }],
    },
    status: { note: 'x'.repeat(200) },
  });
}

describe('StringTable', () => {
  it('changes no value at any depth, arrays included', () => {
    const table = new StringTable();
    const text = pipelineJson('app-1');
    const shared = table.share(JSON.parse(text) as unknown);
    expect(shared).toEqual(JSON.parse(text));
    // Second object: every short value it shares with the first is already known.
    const before = table.size;
    table.share(JSON.parse(pipelineJson('app-1')) as unknown);
    expect(table.size).toBe(before);
  });

  it('remembers each distinct short value once and skips long ones', () => {
    const table = new StringTable();
    table.share(JSON.parse(pipelineJson('app-1')) as unknown);
    // app-1, team, uid-app-1, apps, GitopsCluster, c1, c2, flux-system, the apiVersion,
    // HelmRelease, dev: 11 distinct short values; the 200-character note is not kept.
    expect(table.size).toBe(11);
    table.share(JSON.parse(pipelineJson('app-2')) as unknown);
    expect(table.size).toBe(13);
  });

  it('stays within its bound (two halves of it) and keeps working past it', () => {
    const table = new StringTable(5);
    for (let i = 0; i < 20; i++) {
      const text = pipelineJson(`app-${String(i)}`);
      expect(table.share(JSON.parse(text) as unknown)).toEqual(JSON.parse(text));
      expect(table.size).toBeLessThanOrEqual(10);
    }
    expect(table.size).toBeGreaterThan(5);
  });

  it('leaves frozen objects as they are', () => {
    const table = new StringTable();
    const frozen = Object.freeze({ kind: 'GitopsCluster', inner: { name: 'c1' } });
    const holder = { frozen, open: { kind: 'GitopsCluster' } };
    expect(() => table.share(holder)).not.toThrow();
    expect(holder).toEqual({
      frozen: { kind: 'GitopsCluster', inner: { name: 'c1' } },
      open: { kind: 'GitopsCluster' },
    });
    expect(table.size).toBe(1);
  });
});
