/**
 * The one status writer: a change that leaves the status as stored is never written; a 409 is
 * answered by re-reading and re-applying the change to what is stored, within the bounded,
 * jittered policy; deleted Pipelines are Gone; other API errors are re-thrown.
 */
import { describe, expect, it } from 'vitest';
import {
  CONFLICT_POLICY,
  StatusWriter,
  StatusWritesHeld,
  type StatusChange,
  type WriteAttempt,
} from '../../../src/kube/status-writer.js';
import type { Pipeline } from '../../../src/pipeline/pipeline-resource.js';
import { FakePipelineWriter, statusWriterOver } from '../../support/fake-pipeline-writer.js';
import { samplePipeline } from '../../support/pipeline-fixtures.js';

/** Sets observedGeneration to `n`: a change whose result does not depend on what is stored. */
const setGeneration =
  (n: number): StatusChange<'set'> =>
  (stored) => ({ write: { ...stored.status, observedGeneration: n }, verdict: 'set' });

/** Another replica's write of the same Pipeline. */
function writeBehind(writer: FakePipelineWriter, n: number): void {
  const current = writer.peek('flux-system', 'podinfo');
  if (current === undefined) throw new Error('no Pipeline');
  writer.put({ ...current, status: { ...current.status, conditions: [], observedGeneration: n } });
}

describe('StatusWriter', () => {
  it('writes a change once and makes no write when the change leaves the status as stored', async () => {
    const writer = new FakePipelineWriter();
    const attempts: WriteAttempt[] = [];
    const status = statusWriterOver(writer, attempts);
    const read = writer.put(samplePipeline());
    const first = await status.apply(read, setGeneration(7));
    expect(first.outcome).toBe('Written');
    if (first.outcome !== 'Written') return;
    const again = await status.apply(first.pipeline, setGeneration(7));
    expect(again.outcome).toBe('Kept');
    expect(writer.writes).toBe(1);
    expect(attempts).toStrictEqual(['written', 'unchanged']);
  });

  it('re-reads after a 409 and re-applies the change to what is stored now', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    writeBehind(writer, 3);
    const seen: (number | undefined)[] = [];
    const change: StatusChange<'ok'> = (stored) => {
      seen.push(stored.status?.observedGeneration);
      return {
        write: { ...stored.status, conditions: undefined, observedGeneration: 9 },
        verdict: 'ok',
      };
    };
    const result = await statusWriterOver(writer).apply(read, change);
    expect(result.outcome).toBe('Written');
    expect(seen).toStrictEqual([undefined, 3]);
    expect(writer.conflicts).toBe(1);
    expect(writer.gets).toBe(1);
  });

  it('stops when the change refuses what a conflict brought (no write, the verdict said)', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    writeBehind(writer, 3);
    const change: StatusChange<'mine' | 'theirs'> = (stored) =>
      stored.status?.observedGeneration === 3
        ? { keep: 'theirs' }
        : { write: { observedGeneration: 1 }, verdict: 'mine' };
    const result = await statusWriterOver(writer).apply(read, change);
    expect(result).toMatchObject({ outcome: 'Kept', verdict: 'theirs' });
    expect(writer.writes).toBe(0);
  });

  it('gives up as Contended after the policy, pausing a jittered, growing time between tries', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    for (let i = 0; i < 20; i++)
      writer.beforeNextWrite(() => {
        writeBehind(writer, 100 + i);
      });
    const pauses: number[] = [];
    const attempts: WriteAttempt[] = [];
    const status = new StatusWriter(writer, {
      scheduler: {
        setTimer: (ms, fn) => {
          pauses.push(ms);
          queueMicrotask(fn);
          return () => undefined;
        },
      },
      random: () => 0.5,
      onAttempt: (a) => attempts.push(a),
    });
    const result = await status.apply(read, setGeneration(1));
    expect(result).toStrictEqual({ outcome: 'Contended', attempts: CONFLICT_POLICY.maxAttempts });
    expect(writer.conflicts).toBe(CONFLICT_POLICY.maxAttempts);
    // The first re-read is immediate; then half of 25, 50, 100, 200 ms.
    expect(pauses).toStrictEqual([12.5, 25, 50, 100].map(Math.round));
    expect(attempts.at(-1)).toBe('contended');
  });

  it('answers Gone for a Pipeline deleted before the write or during the conflict', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    writer.delete('flux-system', 'podinfo');
    expect(await statusWriterOver(writer).apply(read, setGeneration(1))).toStrictEqual({
      outcome: 'Gone',
    });
    const again = writer.put(samplePipeline());
    writer.beforeNextWrite(() => {
      writeBehind(writer, 2);
    });
    writer.beforeNextWrite(() => undefined);
    const racing = statusWriterOver(writer).apply(again, (stored: Pipeline) => {
      if (stored.status?.observedGeneration === 2) writer.delete('flux-system', 'podinfo');
      return { write: { observedGeneration: 5 }, verdict: 'x' };
    });
    expect(await racing).toStrictEqual({ outcome: 'Gone' });
  });

  it('re-throws API errors while the Pipeline exists, and refuses writes without resourceVersion', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    writer.beforeNextWrite(() => {
      throw new Error('connection reset');
    });
    await expect(statusWriterOver(writer).apply(read, setGeneration(1))).rejects.toThrow(
      'connection reset',
    );
    const noRv = { ...read, metadata: { ...read.metadata, resourceVersion: undefined } };
    await expect(statusWriterOver(writer).apply(noRv, setGeneration(2))).rejects.toThrow(
      /resourceVersion/,
    );
    expect(writer.writes).toBe(0);
  });

  it('rejects a due write with the held error while writes are held, and still keeps what is stored', async () => {
    const writer = new FakePipelineWriter();
    const read = writer.put(samplePipeline());
    let holding: StatusWritesHeld | undefined = new StatusWritesHeld(['status.halts']);
    const status = new StatusWriter(writer, {
      scheduler: { setTimer: () => () => undefined },
      held: () => holding,
    });
    await expect(status.apply(read, setGeneration(4))).rejects.toBe(holding);
    const unchanged: StatusChange<'same'> = (stored) => ({
      write: stored.status ?? {},
      verdict: 'same',
    });
    expect((await status.apply(read, unchanged)).outcome).toBe('Kept');
    expect(writer.writes).toBe(0);
    holding = undefined;
    expect((await status.apply(read, setGeneration(4))).outcome).toBe('Written');
    expect(writer.writes).toBe(1);
  });
});
