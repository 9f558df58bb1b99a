/**
 * client-node's HttpLibrary on Node's own http/https modules, in place of its default
 * (IsomorphicFetchHttpLibrary, node-fetch 2).
 *
 * Why: node-fetch keeps every chunk of an answer as a Buffer until the answer ends, then copies
 * them into one more Buffer before decoding it. A pass has 16 LIST pages of about 1 MiB in
 * flight, so 16-32 MiB of Buffers lived in the C heap at once and left it fragmented, and
 * glibc keeps a fragmented heap: after the first pass at 10,000 x 50 it held 83 MiB with
 * node-fetch, 69 with this (docs/adr/0013-client-node-over-node-http.md). Here each chunk is
 * decoded as it arrives and
 * its Buffer dropped at once, and a call allocates no WHATWG Headers or streams around it.
 * What it keeps of node-fetch: the agent and abort signal of the request, its method, headers
 * and body; the answer's status, headers (lower-case names, repeated ones joined) and body as
 * text or bytes. What it leaves out, unused by API servers' answers to this gateway: redirects
 * and compressed answers (no Accept-Encoding is sent, so none comes).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  Observable,
  ResponseContext,
  type HttpLibrary,
  type RequestContext,
} from '@kubernetes/client-node';

/**
 * An answer's body as this library gives it: as client-node's, and also read chunk by chunk as
 * it arrives (list-items.ts reads LIST answers so).
 */
export interface StreamingBody extends ResponseBody {
  /** Calls `onText` with each chunk of the body as text (UTF-8), in order; resolves at its end. */
  each(onText: (text: string) => void): Promise<void>;
}

type ResponseBody = ResponseContext['body'];

/** True when `body` can be read as it arrives (an answer of this library's). */
export function isStreamingBody(body: ResponseBody): body is StreamingBody {
  return typeof (body as Partial<StreamingBody>).each === 'function';
}

/** Sends client-node's requests with node:http(s); see the module's comment. */
export class NodeHttpLibrary implements HttpLibrary {
  /** The answer once its head arrived; its body is read when client-node asks for it. */
  send(request: RequestContext): Observable<ResponseContext> {
    return new Observable(sendRequest(request));
  }
}

function sendRequest(context: RequestContext): Promise<ResponseContext> {
  const url = new URL(context.getUrl());
  const body = context.getBody();
  if (body !== undefined && typeof body !== 'string') {
    // client-node's generated calls send JSON text; forms are for file uploads it does not make.
    return Promise.reject(new TypeError('only text request bodies are supported'));
  }
  const headers: Record<string, string | number> = { ...context.getHeaders() };
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  const agent = context.getAgent();
  const signal = context.getSignal();
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: context.getHttpMethod(),
      headers,
      ...(agent === undefined ? {} : { agent }),
      ...(signal === undefined ? {} : { signal }),
    });
    // Kept for the whole call: an error after the answer's head goes to its body's reader.
    req.on('error', reject);
    req.once('response', (res) => {
      resolve(new ResponseContext(res.statusCode ?? 0, headersOf(res), answerBody(res, signal)));
    });
    req.end(body);
  });
}

/** The answer's headers as node-fetch gave them: repeated ones joined with ", ". */
function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function answerBody(res: IncomingMessage, signal: AbortSignal | undefined): StreamingBody {
  return {
    text: () =>
      whileNotAborted(signal, async () => {
        res.setEncoding('utf8');
        let text = '';
        for await (const chunk of res) text += chunk as string;
        return text;
      }),
    binary: () =>
      whileNotAborted(signal, async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      }),
    each: (onText) =>
      whileNotAborted(signal, async () => {
        res.setEncoding('utf8');
        for await (const chunk of res) onText(chunk as string);
      }),
  };
}

/**
 * `read`, failing as an AbortError when the signal ended it. Why: an abort while the body is
 * read ends the answer with Node's "aborted" (ECONNRESET), which reads as a dead connection;
 * node-fetch failed it as aborted, and a timeout must be told apart from an unreachable cluster.
 */
async function whileNotAborted<T>(
  signal: AbortSignal | undefined,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (signal?.aborted === true)
      throw new DOMException('This operation was aborted', 'AbortError');
    throw err;
  }
}
