/**
 * A loopback server answering JSON as the gateway's read API does, for the CLI's commands that
 * read it: each request's path and Authorization header are recorded, the answer is the test's.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running loopback JSON server. */
export interface JsonGateway {
  url: string;
  /** Every request, in arrival order. */
  seen: { path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 answering each request with `answer(request)`'s status and body. */
export async function startJsonGateway(
  answer: (request: IncomingMessage) => { status: number; body: unknown },
): Promise<JsonGateway> {
  const seen: JsonGateway['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    const { status, body } = answer(req);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
