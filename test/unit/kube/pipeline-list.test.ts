/**
 * The Pipeline watch's LIST in pages: every page's items in order, each next page asked with the
 * previous page's continue token, and the snapshot's resourceVersion for the watch to start from.
 */
import { describe, expect, it } from 'vitest';
import { listAllPages } from '../../../src/kube/pipeline-watch.js';

function pipelines(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    metadata: { name: `p${String(from + i)}`, namespace: 'apps' },
  }));
}

describe('listAllPages', () => {
  it("follows continue tokens to the last page and keeps the first page's resourceVersion", async () => {
    const asked: (string | undefined)[] = [];
    const pages = new Map<string | undefined, object>([
      [undefined, { metadata: { resourceVersion: '41', continue: 'a' }, items: pipelines(0, 2) }],
      ['a', { metadata: { resourceVersion: '41', continue: 'b' }, items: pipelines(2, 2) }],
      ['b', { metadata: { resourceVersion: '41', continue: '' }, items: pipelines(4, 1) }],
    ]);
    const list = await listAllPages((token) => {
      asked.push(token);
      return Promise.resolve(pages.get(token));
    });
    expect(asked).toEqual([undefined, 'a', 'b']);
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(list.metadata?.resourceVersion).toBe('41');
  });

  it('asks once when the first page is the whole list', async () => {
    let calls = 0;
    const list = await listAllPages(() => {
      calls += 1;
      return Promise.resolve({ metadata: { resourceVersion: '7' }, items: pipelines(0, 3) });
    });
    expect(calls).toBe(1);
    expect(list.items).toHaveLength(3);
  });

  it('fails as a whole when a later page fails', async () => {
    const failing = listAllPages((token) =>
      token === undefined
        ? Promise.resolve({ metadata: { continue: 'x' }, items: pipelines(0, 1) })
        : Promise.reject(new Error('410 Expired')),
    );
    await expect(failing).rejects.toThrow('410 Expired');
  });
});
