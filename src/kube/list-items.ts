/**
 * A LIST answer read as it arrives: each element of its `items` array parsed on its own as soon
 * as its text is complete, and the rest of the answer (apiVersion, kind, metadata with the
 * continue token) kept as text with `items` emptied, for the client library to parse as the
 * answer.
 *
 * Why: a page of 500 HelmReleases is about 1 MiB of JSON, which JSON.parse made into about 5 MB
 * of objects at once; 16 LISTs in flight held them together for as long as their pages were
 * read and visited, long enough to reach V8's old space, and a promotion wave's cluster-wide
 * re-LISTs came as a burst of them (docs/adr/0017-list-items-parsed-as-they-arrive.md). One
 * item's objects are a few KB, and
 * the reader hands them on in small batches that its visitor drops while they are young.
 */
import { ResponseContext, type ObservableMiddleware } from '@kubernetes/client-node';
import { isStreamingBody } from './node-http.js';
import type { KubeObject } from './ports.js';
import { answerMiddleware } from './request-options.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Splits a Kubernetes List's JSON text, given in chunks cut anywhere, into its items' texts
 * (to `onItem`, in order) and the rest of the object. Only the top-level `items` array is split;
 * anything else passes into the rest as it came. It checks nesting and strings only: the texts
 * it gives are JSON.parse'd by the caller, which is where malformed JSON fails.
 */
export class ListItemSplitter {
  /** Text of the answer outside `items`' elements. */
  private rest: string[] = [];
  /** Parts of the element being read, when it spans chunks. */
  private item: string[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1: whether the next string is a member's key. */
  private expectKey = false;
  /** At depth 1: the key being read (its raw text, from keyStart in this chunk), the last read. */
  private keyParts: string[] | undefined;
  private keyStart = 0;
  private lastKey = '';
  /** True while inside the top-level `items` array. */
  private inItems = false;

  constructor(private readonly onItem: (text: string) => void) {}

  /** Feeds the next chunk of the answer's text. */
  write(chunk: string): void {
    // Where the current run of text for `rest` or for the element started in this chunk.
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.endString(chunk, i);
        continue;
      }
      if (c === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.keyParts = [];
          this.keyStart = i + 1;
        }
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        from = this.open(c, chunk, from, i);
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        from = this.close(chunk, from, i);
      } else if (this.depth === 1 && c === COMMA) {
        this.expectKey = true;
      } else if (this.inItems && this.depth === 2 && c === COMMA) {
        // The comma between two elements goes with them: `items` is left empty.
        this.rest.push(chunk.slice(from, i));
        from = i + 1;
      } else if (this.depth === 1 && c === COLON) {
        this.expectKey = false;
      }
    }
    this.carry(chunk, from);
  }

  /** The answer's text with `items` emptied, once all of it was written. */
  end(): string {
    if (this.depth !== 0 || this.inString) throw new SyntaxError('LIST answer ended early');
    return this.rest.join('');
  }

  private endString(chunk: string, at: number): void {
    this.inString = false;
    if (this.keyParts === undefined) return;
    this.keyParts.push(chunk.slice(this.keyStart, at));
    this.lastKey = this.keyParts.join('');
    this.keyParts = undefined;
  }

  private open(c: number, chunk: string, from: number, at: number): number {
    this.depth++;
    if (this.depth === 1) this.expectKey = true;
    if (this.depth === 2 && c === OPEN_BRACKET && this.lastKey === 'items') this.inItems = true;
    if (this.inItems && this.depth === 3) {
      // An element starts: what came before it is the rest's.
      this.rest.push(chunk.slice(from, at));
      return at;
    }
    return from;
  }

  private close(chunk: string, from: number, at: number): number {
    this.depth--;
    if (this.inItems && this.depth === 2) {
      this.item.push(chunk.slice(from, at + 1));
      const text = this.item.join('');
      this.item = [];
      this.onItem(text);
      return at + 1;
    }
    if (this.inItems && this.depth === 1) this.inItems = false;
    return from;
  }

  /** Keeps what is left of the chunk: part of an element, of a key, or of the rest. */
  private carry(chunk: string, from: number): void {
    if (this.keyParts !== undefined) this.keyParts.push(chunk.slice(this.keyStart));
    this.keyStart = 0;
    const tail = chunk.slice(from);
    if (this.inItems && this.depth >= 3) this.item.push(tail);
    else this.rest.push(tail);
  }
}

/**
 * Middleware for one LIST call: the items of a successful answer go to `onItem` as they arrive,
 * parsed one by one, and the client library is handed the answer without them (`items: []`),
 * from which the caller reads the continue token. Other answers pass untouched, for the library
 * to raise as it does. A body that cannot be read as it arrives (not node-http.ts's) is read
 * whole, then split the same way.
 */
export function itemsAsTheyArrive(onItem: (item: KubeObject) => void): ObservableMiddleware {
  return answerMiddleware(async (answer) => {
    const status = answer.httpStatusCode;
    if (status < 200 || status > 299) return answer;
    const splitter = new ListItemSplitter((text) => {
      onItem(JSON.parse(text) as KubeObject);
    });
    const { body } = answer;
    if (isStreamingBody(body)) {
      await body.each((text) => {
        splitter.write(text);
      });
    } else splitter.write(await body.text());
    const rest = splitter.end();
    return new ResponseContext(status, answer.headers, {
      text: () => Promise.resolve(rest),
      binary: () => Promise.resolve(Buffer.from(rest)),
    });
  });
}
