import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `demo` leaves for `demo deploy` / `demo status` in another terminal. */
export interface DemoState {
  gatewayUrl: string;
  adminUrl: string;
  kubeconfig: string;
  /** Per environment: the Flux Provider's generic-hmac key. Demo-only secrets. */
  hmacKeys: Record<string, string>;
  /** A JWT allowed to read every pipeline, for GET /v1/pipelines. */
  viewerToken: string;
}

/** Where the demo keeps its state unless --state says otherwise. */
export function defaultStatePath(): string {
  return join(tmpdir(), 'promotion-gateway-demo', 'state.json');
}

/** Writes the state readable by the owner only: it holds the demo's keys. */
export async function writeState(path: string, state: DemoState): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** Reads the state of a running demo, with a clear message when there is none. */
export async function readState(path: string): Promise<DemoState> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as DemoState;
  } catch {
    throw new Error(`no running demo found (${path}); start one with: npm start`);
  }
}
