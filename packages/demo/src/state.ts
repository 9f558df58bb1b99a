/**
 * What a running demo leaves for `demo deploy|status|approve|promote|merge` in another
 * terminal: one directory per port (two demos on two ports never share one), readable by its
 * owner only, removed when the demo stops.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { DemoError } from './args.js';

/** The running demo's addresses and its demo-only secrets. */
export interface DemoState {
  gatewayUrl: string;
  /** The web view (docs/ui.md), anonymous read. */
  viewUrl: string;
  adminUrl: string;
  kubeconfig: string;
  /** Per environment: the Flux Provider's generic-hmac key. */
  hmacKeys: Record<string, string>;
  /** A JWT allowed to read every pipeline, for GET /v1/pipelines. */
  viewerToken: string;
  /** The demo approver's name and private key (PKCS#8 PEM, Ed25519). */
  approver: { name: string; privateKeyPem: string };
  /** The demo CI issuer: its `iss`, the audience, and its signing key (PKCS#8 PEM, RS256). */
  ci: { issuer: string; audience: string; privateKeyPem: string; repository: string };
  /** The demo forge: its REST base, the fleet repository and the demo maintainer's token. */
  forge: { apiUrl: string; repo: string; token: string };
}

/** The demo's directory for `port`: `$TMPDIR/promotion-gateway-demo-<user>/<port>`. */
export function stateDir(port: number, root = tmpdir()): string {
  return join(root, `promotion-gateway-demo-${safeUser()}`, String(port));
}

function safeUser(): string {
  try {
    return userInfo().username.replace(/[^A-Za-z0-9_.-]/g, '_');
  } catch {
    return String(process.getuid?.() ?? 'user');
  }
}

/**
 * Writes the state file into `dir` (created 0700), readable by the owner only. Written aside and
 * renamed into place, so a reader polling for the file (another terminal's CLI, a test) never
 * reads it half-written.
 */
export async function writeState(dir: string, state: DemoState): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const aside = join(dir, `state.json.${String(process.pid)}.tmp`);
  await writeFile(aside, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(aside, join(dir, 'state.json'));
}

/** The state of the demo on `port`; a DemoError saying how to start one when there is none. */
export async function readState(dir: string, port: number): Promise<DemoState> {
  try {
    return JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as DemoState;
  } catch {
    throw notRunning(port);
  }
}

/** Removes the demo's directory (its kubeconfig and keys with it). */
export async function removeState(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The error every client command gives when no demo answers on `port`. */
export function notRunning(port: number): DemoError {
  const flag = port === 8080 ? '' : ` -- --port ${String(port)}`;
  return new DemoError(
    `no demo is running on port ${String(port)} (start it with \`npm start${flag}\`)`,
  );
}
