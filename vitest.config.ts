import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'sdk/test/**/*.test.ts', 'console/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts', 'console/test/global-setup.ts'],
    // CI runs the whole suite on a 2-core machine where real processes, databases and timers
    // compete; a test that fails once is run again there (and shows as retried in the report)
    // rather than losing a whole submission to a timing accident. Locally nothing is retried,
    // so a flaky test is seen and fixed.
    retry: process.env.CI ? 1 : 0,
  },
});
