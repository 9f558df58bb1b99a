/**
 * A Pipeline's status as the catalog holds it between reads: its JSON deflated against a
 * dictionary of the status's own vocabulary (status-dictionary.ts), kept as a one-byte string.
 *
 * Why: a parsed status is a tree of small objects, about 340 bytes per target at fleet scale
 * even with its strings shared (target records, conditions, per-environment records), and it is
 * read once per check of its Pipeline; packed it is about 40 bytes per target, and unpacking
 * one costs about 20 microseconds. A one-byte string, not a Buffer: it lives on the V8 heap,
 * where the benchmark's live-heap figures count it (a Buffer's bytes are outside it).
 */
import { Buffer } from 'node:buffer';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { PipelineStatus } from '../pipeline/pipeline-resource.js';
import { STATUS_DICTIONARY } from './status-dictionary.js';

/** A packed status: only unpackStatus reads it. */
export type PackedStatus = string & { readonly packedStatus: unique symbol };

/**
 * Each call makes a zlib stream whose output buffer is `chunkSize` bytes: 16 KiB by default,
 * allocated outside the V8 heap and freed only by a later GC, which at thousands of calls per
 * pass held 90 MiB more RSS in a loop of 200,000 (measured); 1 KiB buffers come from Node's
 * pool and held half as much. A status packs to a few hundred bytes, so most fit in one chunk.
 */
const OPTIONS = { dictionary: STATUS_DICTIONARY, chunkSize: 1024 } as const;

/** `status` packed; unpackStatus gives back an equal status (as JSON would). */
export function packStatus(status: PipelineStatus): PackedStatus {
  return deflateRawSync(JSON.stringify(status), OPTIONS).toString('latin1') as PackedStatus;
}

/** A new status equal to the one packed: the caller owns it (nothing else holds it). */
export function unpackStatus(packed: PackedStatus): PipelineStatus {
  const json = inflateRawSync(Buffer.from(packed, 'latin1'), OPTIONS).toString('utf8');
  return JSON.parse(json) as PipelineStatus;
}

/** How many unpacked statuses RecentStatuses keeps. */
const RECENT = 256;

/**
 * The statuses unpacked last, by Pipeline, each with the packed form it came from: a check,
 * the resync's first-observation test and the view read the same Pipeline several times in a
 * row, and each would otherwise unpack it again. Bounded, least recently used out first.
 */
export class RecentStatuses<K> {
  private readonly recent = new Map<K, { packed: PackedStatus; status: PipelineStatus }>();

  constructor(private readonly capacity = RECENT) {}

  /** `packed` unpacked, from the last call for `key` when it was unpacked from this same string. */
  unpack(key: K, packed: PackedStatus): PipelineStatus {
    const known = this.recent.get(key);
    this.recent.delete(key);
    const status = known?.packed === packed ? known.status : unpackStatus(packed);
    this.recent.set(key, { packed, status });
    if (this.recent.size > this.capacity) {
      const [oldest] = this.recent.keys();
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    return status;
  }

  /** Forgets `key`'s status (its Pipeline is gone). */
  forget(key: K): void {
    this.recent.delete(key);
  }
}
