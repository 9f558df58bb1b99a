/**
 * A GET's answer as text, through node:http. Why not fetch(): in a process whose memory a
 * benchmark measures, fetch() loads undici and compiles its WebAssembly parser there (about
 * 10 MiB of RSS: 113.2 against 103.0 MiB in a process with the gateway's bundle loaded), which
 * the gateway itself does not load.
 */
import { get } from 'node:http';

/** The body of a GET of `url` (http only), whatever its status; rejects on a network error. */
export function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve(text);
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}
