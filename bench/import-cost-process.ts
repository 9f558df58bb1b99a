/**
 * What the gateway's dependencies cost in resident memory before the gateway does anything:
 * a fresh process (the production Node.js flags plus --expose-gc) measures its RSS after a full
 * collection, then after importing @kubernetes/client-node as a package is usually loaded (the
 * memory bar's allowance for it), then after importing the gateway (its bundle, dist/index.js,
 * which carries its own copy of the client library's code it uses: see esbuild.config.js). Each
 * step is measured after a full GC, so the figures are what stays resident, not parse-time
 * garbage. It reports once; the parent then closes it.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** RSS after each import step, in bytes (sent to the parent as `{ type: 'ready', ... }`). */
export interface ImportCost {
  /** The bare Node.js process (this script and node's own modules). */
  baselineRssBytes: number;
  /** After `import('@kubernetes/client-node')`. */
  clientNodeRssBytes: number;
  /** After also importing the gateway's bundle (fastify, pino, ajv, prom-client, jose, ...). */
  gatewayModulesRssBytes: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function settledRss(): Promise<number> {
  if (gc === undefined) throw new Error('import-cost-process needs --expose-gc');
  gc();
  // Let freed pages go back before reading (V8 releases some asynchronously).
  await delay(100);
  gc();
  return process.memoryUsage().rss;
}

async function main(): Promise<void> {
  const baselineRssBytes = await settledRss();
  await import('@kubernetes/client-node');
  const clientNodeRssBytes = await settledRss();
  await import('promotion-gateway');
  const gatewayModulesRssBytes = await settledRss();
  const cost: ImportCost = { baselineRssBytes, clientNodeRssBytes, gatewayModulesRssBytes };
  // The parent closes the IPC channel once it has the figures; the process then exits.
  process.send?.({ type: 'ready', ...cost });
}

if (process.send !== undefined) {
  main().catch((err: unknown) => {
    process.stderr.write(
      `bench import cost: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  });
}
