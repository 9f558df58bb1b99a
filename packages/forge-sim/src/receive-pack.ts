/**
 * Just enough of the receive-pack wire format to refuse a push the way a forge's pre-receive
 * check does: read the ref-update commands at the head of the request, and answer with a
 * report-status of `ng` lines, plus the forge's message on the progress side band (which git
 * prints as `remote: ...`).
 */
import { gunzipSync } from 'node:zlib';

/** One ref update a push asks for. */
export interface RefUpdate {
  oldSha: string;
  newSha: string;
  ref: string;
}

/** The commands of a receive-pack request and the capabilities the client asked for. */
export interface PushCommands {
  updates: RefUpdate[];
  capabilities: string[];
}

/** The request body as git http-backend will read it (clients may gzip it). */
export function plainBody(raw: Buffer, encoding: string | undefined): Buffer {
  return encoding === 'gzip' || encoding === 'x-gzip' ? gunzipSync(raw) : raw;
}

/** Reads the pkt-line commands up to the first flush packet. */
export function parseCommands(body: Buffer): PushCommands {
  const updates: RefUpdate[] = [];
  let capabilities: string[] = [];
  let at = 0;
  while (at + 4 <= body.length) {
    const len = parseInt(body.subarray(at, at + 4).toString('ascii'), 16);
    if (Number.isNaN(len) || len === 0) break;
    let line = body.subarray(at + 4, at + len).toString('utf8');
    at += len;
    const nul = line.indexOf('\0');
    if (nul >= 0) {
      capabilities = line
        .slice(nul + 1)
        .trim()
        .split(' ');
      line = line.slice(0, nul);
    }
    const [oldSha = '', newSha = '', ref = ''] = line.trim().split(' ');
    // "shallow <oid>" lines precede the commands when the pushing clone is shallow.
    if (oldSha === 'shallow' || ref === '') continue;
    updates.push({ oldSha, newSha, ref });
  }
  return { updates, capabilities };
}

function pkt(data: Buffer | string): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
}

function band(channel: number, data: Buffer): Buffer[] {
  // side-band (without 64k) packets carry at most 995 bytes of data; stay under it always.
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += 990)
    out.push(pkt(Buffer.concat([Buffer.from([channel]), data.subarray(i, i + 990)])));
  return out;
}

/**
 * A receive-pack answer refusing every update with `reason` (git shows it in parentheses after
 * "[remote rejected]"), with `message` on the progress band when the client can show it.
 */
export function refusal(commands: PushCommands, reason: string, message: string): Buffer {
  const report = Buffer.concat([
    pkt('unpack ok\n'),
    ...commands.updates.map((u) => pkt(`ng ${u.ref} ${reason}\n`)),
    Buffer.from('0000'),
  ]);
  const caps = commands.capabilities;
  if (!caps.includes('side-band-64k') && !caps.includes('side-band')) return report;
  return Buffer.concat([
    ...band(2, Buffer.from(message, 'utf8')),
    ...band(1, report),
    Buffer.from('0000'),
  ]);
}
