import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under this condition (see package.json
// "exports"), so tests run the sources of the gateway, the simulators and the demo without a build.
const SOURCE_CONDITION = '@promotion-gateway/source';

// Registers the per-file hooks support modules need (test/support/test-setup.ts says why).
const SETUP = ['test/support/test-setup.ts'];

// One project per suite so a developer can run one alone; `npm test` runs them all.
export default defineConfig({
  ssr: { resolve: { conditions: [SOURCE_CONDITION] } },
  test: {
    // Most integration tests wait on sockets and timers, not the CPU: three files at once on
    // CI's two cores halve the run (one worker per core left them mostly idle).
    maxWorkers: 3,
    // The JSON report lets .ci/run print one plain "N passed, N failed" line per Node version.
    reporters: ['default', ['json', { outputFile: 'coverage/vitest-report.json' }]],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          setupFiles: SETUP,
          // One module graph per worker, not per file: importing the sources again for each of
          // ~190 files was two thirds of the unit run (37 s -> 13 s alone; 85 s -> 26 s on two
          // shared cores). Unit tests keep no state in modules between files (checked with
          // --sequence.shuffle); keep it so: a module's caches must answer as a fresh one would,
          // and per-file hooks go in SETUP, not in a support module's top level.
          isolate: false,
          // A hang detector, not a speed bar: property tests run 100 cases, which on a machine
          // busy with another build can take longer than vitest's default 5 s.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          setupFiles: SETUP,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // The monitoring kit (manifests/monitoring/) against Debian's promtool and a real
        // Prometheus server scraping a real gateway (test/monitoring/support/prometheus.ts).
        extends: true,
        test: {
          name: 'monitoring',
          include: ['test/monitoring/**/*.test.ts'],
          environment: 'node',
          setupFiles: SETUP,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Real Chromium (test/browser/support/chromium.ts) against the demo and the view: one
        // file at a time, after the other projects, so a browser and a demo fleet never share
        // CI's two cores with three other test files.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'sim-kit',
          include: ['packages/sim-kit/test/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'kube-sim',
          include: ['packages/kube-sim/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'forge-sim',
          include: ['packages/forge-sim/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'demo',
          include: ['packages/demo/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
