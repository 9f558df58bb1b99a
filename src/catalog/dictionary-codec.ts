/**
 * Raw deflate and inflate against one dictionary, each through a single zlib stream that lives
 * as long as the codec and is reset between calls (pako's port of zlib, its low-level calls).
 *
 * Why not node:zlib's deflateRawSync and inflateRawSync: each call makes a stream object with a
 * native zlib context of its own (an inflate's 32 KiB window, a deflate's 256 KiB of tables, a
 * copy of the dictionary that stays until the next full GC), allocated with malloc and freed
 * at scattered times, so glibc's heap fragments. A 10,000-Pipeline fleet unpacks about 280,000
 * times a run: a loop of 204,800 unpacks grew glibc's heap to 30 MiB and the process to
 * 118 MiB RSS, against 3 and 64 with one stream kept (JSON.parse alone: 59); 102,400 packs
 * to 22 and 90, against 3 and 64 (docs/adr/0015-one-deflate-and-one-inflate-stream.md). The
 * calls are synchronous, so one
 * stream serves every caller in turn.
 */
import { Buffer } from 'node:buffer';
import { constants } from 'node:zlib';
import pakoDeflate from 'pako/lib/zlib/deflate.js';
import pakoInflate from 'pako/lib/zlib/inflate.js';
import ZStream from 'pako/lib/zlib/zstream.js';

const { Z_OK, Z_STREAM_END, Z_BUF_ERROR, Z_FINISH, Z_DEFAULT_STRATEGY } = constants;
/** zlib's one compression method (Node's typings leave its constant out). */
const Z_DEFLATED = 8;
/** Negative: a raw stream, no zlib header or checksum; 15: a 32 KiB window, zlib's default. */
const RAW_WINDOW_BITS = -15;
const DEFAULT_LEVEL = 6;
const DEFAULT_MEM_LEVEL = 8;
/** Where the buffers start; they grow to the largest value seen and stay (one of each). */
const FIRST_BUFFER_BYTES = 16 * 1024;

/**
 * One deflate stream and one inflate stream against `dictionary`. deflate() of equal text gives
 * equal bytes; inflate() gives back the text deflated. Not for concurrent use from workers.
 */
export class DictionaryCodec {
  readonly #dictionary: Uint8Array;
  readonly #deflater = new ZStream();
  readonly #inflater = new ZStream();
  #input = Buffer.allocUnsafeSlow(FIRST_BUFFER_BYTES);
  #output = Buffer.allocUnsafeSlow(FIRST_BUFFER_BYTES);

  constructor(dictionary: Uint8Array) {
    this.#dictionary = dictionary;
    const deflater = this.#deflater;
    const settings = [DEFAULT_LEVEL, Z_DEFLATED, RAW_WINDOW_BITS, DEFAULT_MEM_LEVEL] as const;
    expectOk(pakoDeflate.deflateInit2(deflater, ...settings, Z_DEFAULT_STRATEGY), deflater);
    expectOk(pakoInflate.inflateInit2(this.#inflater, RAW_WINDOW_BITS), this.#inflater);
  }

  /** `text` (UTF-8) deflated, as a one-byte (latin1) string of the compressed bytes. */
  deflate(text: string): string {
    const stream = this.#deflater;
    expectOk(pakoDeflate.deflateReset(stream), stream);
    // A reset leaves the last input in the window, and the match finder reads a few bytes past
    // the end of the data: stale ones there can pick another of two equal matches. Zeroed, the
    // window is a new stream's, so equal text deflates to equal bytes (RecentUnpacked keys on
    // them). 64 KiB cleared: a few microseconds.
    stream.state?.window?.fill(0);
    expectOk(pakoDeflate.deflateSetDictionary(stream, this.#dictionary), stream);
    this.#setInput(stream, text, 'utf8');
    const length = this.#finish(stream, (s) => pakoDeflate.deflate(s, Z_FINISH));
    return this.#output.toString('latin1', 0, length);
  }

  /** The text deflate() gave `bytes` for; throws when `bytes` is not such a stream, whole. */
  inflate(bytes: string): string {
    const stream = this.#inflater;
    expectOk(pakoInflate.inflateReset(stream), stream);
    expectOk(pakoInflate.inflateSetDictionary(stream, this.#dictionary), stream);
    this.#setInput(stream, bytes, 'latin1');
    const length = this.#finish(stream, (s) => pakoInflate.inflate(s, Z_FINISH));
    return this.#output.toString('utf8', 0, length);
  }

  #setInput(stream: ZStream, text: string, encoding: 'utf8' | 'latin1'): void {
    const bytes = Buffer.byteLength(text, encoding);
    if (bytes > this.#input.length) this.#input = Buffer.allocUnsafeSlow(grown(bytes));
    this.#input.write(text, 0, encoding);
    stream.input = this.#input;
    stream.next_in = 0;
    stream.avail_in = bytes;
  }

  /** Runs `step` to the end of the stream, growing the output; returns the bytes written. */
  #finish(stream: ZStream, step: (stream: ZStream) => number): number {
    let written = 0;
    for (;;) {
      stream.output = this.#output;
      stream.next_out = written;
      stream.avail_out = this.#output.length - written;
      const code = step(stream);
      written = stream.next_out;
      if (code === Z_STREAM_END) break;
      // Out of room: Z_OK or Z_BUF_ERROR with the output full. Anything else is an error, and
      // so is Z_BUF_ERROR with room left (the input ended before the stream did).
      const full = stream.avail_out === 0;
      if (!full || (code !== Z_OK && code !== Z_BUF_ERROR)) throw codecError(code, stream);
      const larger = Buffer.allocUnsafeSlow(grown(this.#output.length + 1));
      this.#output.copy(larger, 0, 0, written);
      this.#output = larger;
    }
    // Release the caller's input for the GC; the stream keeps only its own state.
    stream.input = null;
    return written;
  }
}

/** The next power of two at least `bytes`. */
function grown(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(bytes, FIRST_BUFFER_BYTES)));
}

function expectOk(code: number, stream: ZStream): void {
  if (code !== Z_OK) throw codecError(code, stream);
}

function codecError(code: number, stream: ZStream): Error {
  return new Error(`zlib error ${String(code)}${stream.msg === '' ? '' : `: ${stream.msg}`}`);
}
