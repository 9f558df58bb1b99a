/**
 * The CRD guard over a fake read of the installed CRD: it refuses to start on a CRD that prunes
 * the records, holds status writes from the re-check that finds one until one finds a CRD that
 * keeps them, changes nothing on a read that fails, and makes one read for many callers at once
 * (a wave's unkept claims must not each GET the CRD).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/load.js';
import type { InstalledSchema } from '../../../src/kube/pipeline-crd.js';
import type { KubeCalls } from '../../../src/kube/request-options.js';
import { createLogger } from '../../../src/log.js';
import { CrdGuard, InstalledCrdError } from '../../../src/wiring/crd-check.js';
import { openApiOf, readYaml } from '../../support/crd-schema.js';
import { FakeScheduler, flush } from '../../support/fake-scheduler.js';

const OURS = openApiOf(readYaml('manifests/crd/pipelines.weave.works_pipelines.yaml'));
const WEAVE = openApiOf(
  readYaml('test/fixtures/weave-gitops/pipelines.weave.works_pipelines.yaml'),
);
const UNREADABLE: InstalledSchema = { ok: false, reason: 'Forbidden', message: 'forbidden' };

/** A guard whose CRD reads answer `next` (settable), counted, each after a turn of the loop. */
function guardOver(first: InstalledSchema, freshMs?: number) {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('debug', {
    write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }),
  });
  const scheduler = new FakeScheduler();
  const rt = {
    config: defaultConfig({ resync: { intervalMs: 60_000 } }),
    management: {} as KubeConfig,
    calls: {} as KubeCalls,
    logger,
    scheduler,
  };
  const reads = { count: 0, next: first };
  const read = async () => {
    reads.count++;
    await Promise.resolve();
    return reads.next;
  };
  const guard = new CrdGuard(rt, read, freshMs);
  return { guard, reads, lines, scheduler };
}

const keeps = (schema: unknown): InstalledSchema => ({ ok: true, schema: schema as never });

describe('CrdGuard', () => {
  it('refuses to start on a CRD that prunes the records, naming what it would lose', async () => {
    const { guard } = guardOver(keeps(WEAVE));
    const started = guard.start();
    await expect(started).rejects.toBeInstanceOf(InstalledCrdError);
    await expect(started).rejects.toThrow(/status\.environments\.\*\.promotion/);
  });

  it('holds writes from the check that finds a pruning CRD until one finds it fixed', async () => {
    const { guard, reads, lines } = guardOver(keeps(OURS));
    await guard.start();
    expect(guard.held()).toBeUndefined();
    reads.next = keeps(WEAVE);
    await guard.recheck();
    expect(guard.held()?.lost).toContain('status.halts');
    reads.next = UNREADABLE;
    await guard.recheck();
    expect(guard.held()).toBeDefined();
    reads.next = keeps(OURS);
    await guard.recheck();
    expect(guard.held()).toBeUndefined();
    expect(lines.filter((l) => l.level >= 40).map((l) => l.msg.slice(0, 23))).toEqual([
      'status writes are held:',
    ]);
    expect(lines.some((l) => l.msg.startsWith('status writes resumed'))).toBe(true);
  });

  it('makes one read for every caller while one runs', async () => {
    const { guard, reads } = guardOver(keeps(OURS));
    await guard.start();
    reads.count = 0;
    reads.next = keeps(WEAVE);
    await Promise.all(Array.from({ length: 50 }, () => guard.recheck()));
    expect(reads.count).toBe(1);
    expect(guard.held()).toBeDefined();
    await guard.recheck();
    expect(reads.count).toBe(2);
  });

  it('re-checks every resync interval until stopped, and starts where it may not read', async () => {
    const { guard, reads, lines, scheduler } = guardOver(UNREADABLE);
    await guard.start();
    expect(lines.some((l) => l.level === 40 && l.msg.startsWith('could not check'))).toBe(true);
    reads.next = keeps(WEAVE);
    scheduler.advance(60_000);
    await flush();
    expect(guard.held()).toBeDefined();
    guard.stop();
    reads.next = keeps(OURS);
    scheduler.advance(600_000);
    await flush();
    expect(guard.held()).toBeDefined();
  });

  it('checks before a write when the last check is older than freshMs, and not where unreadable', async () => {
    const { guard, reads, scheduler } = guardOver(keeps(OURS), 2_000);
    await guard.start();
    reads.next = keeps(WEAVE);
    expect(await guard.beforeWrite()).toBeUndefined();
    expect(reads.count).toBe(1);
    scheduler.advance(2_001);
    const [a, b] = await Promise.all([guard.beforeWrite(), guard.beforeWrite()]);
    expect(reads.count).toBe(2);
    expect(a?.lost).toContain('status.halts');
    expect(b).toBe(a);
    const forbidden = guardOver(UNREADABLE, 0);
    await forbidden.guard.start();
    expect(await forbidden.guard.beforeWrite()).toBeUndefined();
    expect(forbidden.reads.count).toBe(1);
  });
});
