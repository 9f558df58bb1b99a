/**
 * The parts of pako's port of zlib (its `lib/zlib/` modules, which its package exports) that
 * dictionary-codec.ts uses: zlib's own low-level calls, so that one stream can be reset and
 * used again. pako's published types cover only its high-level API. Each module is CommonJS:
 * imported from an ES module, its default export is its `module.exports`.
 */
declare module 'pako/lib/zlib/zstream.js' {
  /** zlib's z_stream: the buffers and positions that inflate() and deflate() work on. */
  class ZStream {
    input: Uint8Array | null;
    next_in: number;
    avail_in: number;
    output: Uint8Array | null;
    next_out: number;
    avail_out: number;
    msg: string;
    /** The stream's internal state; for a deflate stream, `window` is its sliding window. */
    state: { window?: Uint8Array | null } | null;
  }
  export default ZStream;
}

declare module 'pako/lib/zlib/inflate.js' {
  import type ZStream from 'pako/lib/zlib/zstream.js';
  const inflate: {
    inflateInit2(strm: ZStream, windowBits: number): number;
    inflateReset(strm: ZStream): number;
    inflateSetDictionary(strm: ZStream, dictionary: Uint8Array): number;
    inflate(strm: ZStream, flush: number): number;
  };
  export default inflate;
}

declare module 'pako/lib/zlib/deflate.js' {
  import type ZStream from 'pako/lib/zlib/zstream.js';
  const deflate: {
    deflateInit2(
      strm: ZStream,
      level: number,
      method: number,
      windowBits: number,
      memLevel: number,
      strategy: number,
    ): number;
    deflateReset(strm: ZStream): number;
    deflateSetDictionary(strm: ZStream, dictionary: Uint8Array): number;
    deflate(strm: ZStream, flush: number): number;
  };
  export default deflate;
}
