/**
 * A LIST answer parsed as it arrives, with @streamparser/json: each element of its `items` is
 * handed on as soon as it is complete, and only the list's `metadata` (the continue token and
 * the snapshot's resourceVersion) is kept of the rest.
 *
 * Why: a page of 500 HelmReleases is about 1 MiB of JSON, which JSON.parse made into about 5 MB
 * of objects at once; 16 LISTs in flight held them together for as long as their pages were
 * read and visited, long enough to reach V8's old space (docs/adr/0022-kubernetes-transport.md).
 * One item's objects are a few KB, and the reader hands them on in small batches that its
 * visitor drops while they are young.
 */
import { JSONParser } from '@streamparser/json';
import type { KubeObject } from './ports.js';

/** What a LIST page says besides its items. */
export interface ListMeta {
  /** The token of the next page; undefined on the last. */
  continue?: string;
  /** The snapshot's resourceVersion, which every page of one LIST shares. */
  resourceVersion?: string;
}

/**
 * Parses one LIST answer's text, given in chunks cut anywhere: `write` each chunk (items go to
 * `onItem` in order, as they complete), then `end` for the list's metadata. Malformed or
 * truncated JSON throws a SyntaxError from `write` or `end`.
 */
export class ListPageParser {
  private readonly parser: JSONParser;
  private meta: ListMeta = {};

  constructor(onItem: (item: KubeObject) => void) {
    // keepStack false: an item handed on is not also kept in the array being parsed.
    this.parser = new JSONParser({ paths: ['$.items.*', '$.metadata'], keepStack: false });
    this.parser.onValue = ({ value, key, stack }) => {
      if (stack.length === 2) onItem(value as unknown as KubeObject);
      else if (key === 'metadata') this.meta = listMeta(value);
    };
    this.parser.onError = (err) => {
      throw new SyntaxError(`LIST answer is not JSON: ${err.message}`);
    };
  }

  /** Feeds the next chunk of the answer's text. */
  write(text: string): void {
    this.parser.write(text);
  }

  /** The list's metadata, once the whole answer was written. */
  end(): ListMeta {
    if (!this.parser.isEnded) throw new SyntaxError('LIST answer ended early');
    return this.meta;
  }
}

function listMeta(value: unknown): ListMeta {
  const meta: ListMeta = {};
  if (typeof value !== 'object' || value === null) return meta;
  const { continue: token, resourceVersion } = value as Record<string, unknown>;
  if (typeof token === 'string' && token !== '') meta.continue = token;
  if (typeof resourceVersion === 'string') meta.resourceVersion = resourceVersion;
  return meta;
}
