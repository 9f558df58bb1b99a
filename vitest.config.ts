import { defineConfig } from 'vitest/config';

// Two projects so a developer can run the fast unit suite alone; `npm test` runs both.
export default defineConfig({
  test: {
    // The JSON report lets .ci/run print one plain "N passed, N failed" line per Node version.
    reporters: ['default', ['json', { outputFile: 'coverage/vitest-report.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
