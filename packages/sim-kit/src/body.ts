/** Reading a whole request body, refused once it grows past the simulator's limit. */
import type { IncomingMessage } from 'node:http';

/**
 * The whole body of `req`; rejects with `tooLarge()` (and drops the request) once it exceeds
 * `limit` bytes, so an oversized upload is refused without being held in memory.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(tooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}
