/**
 * `runSim` (the `kube-sim` command): starts the fleet on consecutive ports, writes a
 * working kubeconfig, prints where everything is, and stops cleanly on its abort signal.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { runSim } from '../src/index.js';

describe('runSim', () => {
  it('serves the fleet until aborted and writes a usable kubeconfig', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kube-sim-cli-'));
    const out = new PassThrough();
    let printed = '';
    out.on('data', (c: Buffer) => (printed += c.toString('utf8')));
    const stop = new AbortController();
    const kubeconfigPath = join(dir, 'sim.kubeconfig');
    const running = runSim(
      ['--clusters', 'management,dev,staging', '--kubeconfig', kubeconfigPath],
      out,
      { signal: stop.signal },
    );
    try {
      // The kubeconfig is written before the "running" line; wait for that line without timers.
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (printed.includes('kube-sim running')) resolve();
        };
        out.on('data', check);
        check();
      });
      expect(printed).toMatch(/kube-sim cluster management: https:\/\/127\.0\.0\.1:\d+/);
      expect(printed).toContain(`kube-sim kubeconfig: ${kubeconfigPath}`);
      const kc = new KubeConfig();
      kc.loadFromString(await readFile(kubeconfigPath, 'utf8'));
      expect(kc.getContexts().map((c) => c.name)).toEqual(['management', 'dev', 'staging']);
      kc.setCurrentContext('staging');
      const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
      expect(namespaces.items.map((n) => n.metadata?.name)).toContain('default');
    } finally {
      stop.abort();
      await running;
      await rm(dir, { recursive: true, force: true });
    }
    expect(printed).toContain('kube-sim stopped');
  });

  it('rejects a bad port before starting anything', async () => {
    await expect(runSim(['--port', 'x'], new PassThrough())).rejects.toThrow(
      '--port must be a port number',
    );
  });
});
