/**
 * A Pipeline's spec and status as the catalog holds them between reads: their JSON deflated
 * against a dictionary of the gateway's own vocabulary (packing-dictionary.ts), kept as a
 * one-byte string.
 *
 * Why: parsed, a status is a tree of small objects, about 340 bytes per target at fleet scale
 * even with its strings shared (target records, conditions, per-environment records), and a
 * spec whose targets are its own (a namespace per app) about 100 more; each is read once per
 * check of its Pipeline. Packed, a status is about 40 bytes per target and a spec about 15, and
 * unpacking one costs 10 to 20 microseconds. A one-byte string, not a Buffer: it lives on the
 * V8 heap, where the benchmark's live-heap figures count it (a Buffer's bytes are outside it).
 */
import { Buffer } from 'node:buffer';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { PACKING_DICTIONARY } from './packing-dictionary.js';

/** A value of type T packed: only unpack() reads it. Equal values pack to equal strings. */
export type Packed<T> = string & { readonly packedFrom: T };

/**
 * Each call makes a zlib stream whose output buffer is `chunkSize` bytes: 16 KiB by default,
 * allocated outside the V8 heap and freed only by a later GC, which at thousands of calls per
 * pass held 90 MiB more RSS in a loop of 200,000 (measured); 1 KiB buffers come from Node's
 * pool and held half as much. A status packs to a few hundred bytes, so most fit in one chunk.
 */
const OPTIONS = { dictionary: PACKING_DICTIONARY, chunkSize: 1024 } as const;

/** `value` packed (a JSON value); unpack() gives back an equal value (as JSON would). */
export function pack<T>(value: T): Packed<T> {
  return deflateRawSync(JSON.stringify(value), OPTIONS).toString('latin1') as Packed<T>;
}

/** A new value equal to the one packed: the caller owns it (nothing else holds it). */
export function unpack<T>(packed: Packed<T>): T {
  const json = inflateRawSync(Buffer.from(packed, 'latin1'), OPTIONS).toString('utf8');
  return JSON.parse(json) as T;
}

/**
 * How many unpacked values a RecentUnpacked keeps: enough for the checks in flight at once
 * (each reads its Pipeline a few times in a row), few enough to stay a small fixed cost.
 */
const RECENT = 64;

/**
 * The values unpacked last, by their packed form: a check, the resync's first-observation test
 * and the view read the same Pipeline several times in a row, and each would otherwise unpack
 * it again. Bounded, least recently used out first. A value given out is shared by every
 * caller that unpacks the same string, so it is never to be changed.
 */
export class RecentUnpacked<T> {
  private readonly recent = new Map<Packed<T>, T>();

  constructor(private readonly capacity = RECENT) {}

  /** `packed` unpacked: the value given for the same string last time when it is still kept. */
  unpack(packed: Packed<T>): T {
    const known = this.recent.get(packed);
    if (known !== undefined) this.recent.delete(packed);
    const value = known ?? unpack(packed);
    this.recent.set(packed, value);
    if (this.recent.size > this.capacity) {
      const [oldest] = this.recent.keys();
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    return value;
  }
}
