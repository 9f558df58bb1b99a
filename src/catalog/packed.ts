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
 * One codec for the process: its two zlib streams are reset between calls, not made anew
 * (dictionary-codec.ts says why).
 */
import { DictionaryCodec } from './dictionary-codec.js';
import { PACKING_DICTIONARY } from './packing-dictionary.js';

/** A value of type T packed: only unpack() reads it. Equal values pack to equal strings. */
export type Packed<T> = string & { readonly packedFrom: T };

const codec = new DictionaryCodec(PACKING_DICTIONARY);

/** `value` packed (a JSON value); unpack() gives back an equal value (as JSON would). */
export function pack<T>(value: T): Packed<T> {
  return codec.deflate(JSON.stringify(value)) as Packed<T>;
}

/** A new value equal to the one packed: the caller owns it (nothing else holds it). */
export function unpack<T>(packed: Packed<T>): T {
  return JSON.parse(codec.inflate(packed)) as T;
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
