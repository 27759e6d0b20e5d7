import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'sdk/test/**/*.test.ts', 'console/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One worker process runs many files one after another (no fresh module graph per file): the
    // app's modules, sharp and the engines load once per worker, not once per file (~10 % of the
    // suite's CPU). Files share no state that matters: each makes its own app, data folder,
    // PostgreSQL schema and Redis prefix; none mocks a module (tests wrap what they observe through
    // DepsOverrides instead) and none changes process.env.
    isolate: false,
    // One file more than the cores (vitest's default leaves one core idle: on a 2-core CI machine
    // that is one file at a time). About a quarter of the files' time is spent waiting on real
    // processes, databases, timers, ffmpeg and sockets, so a third file fills the cores while two
    // wait: on 2 cores the suite took 267 s with 3 workers, 321 s with 2 and 269 s with 4. Files
    // share nothing (own temp dirs, PostgreSQL schemas, Redis prefixes, ports).
    maxWorkers: os.availableParallelism() + 1,
    globalSetup: ['test/helpers/global-setup.ts', 'console/test/global-setup.ts'],
    // CI runs the whole suite on a 2-core machine where real processes, databases and timers
    // compete; a test that fails once is run again there (and shows as retried in the report)
    // rather than losing a whole submission to a timing accident. Locally nothing is retried,
    // so a flaky test is seen and fixed.
    retry: process.env.CI ? 1 : 0,
  },
});
