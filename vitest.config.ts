import { defineConfig } from 'vitest/config';

// Two projects: `unit` never opens a connection (runs anywhere); `int` talks to the machine's
// PostgreSQL and MariaDB, each test file in its own database cloned from a migrated template.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ['test/support/childProcesses.setup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'], globalSetup: ['test/support/buildSetup.ts'] } },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts', 'test/**/*.slow.test.ts', '**/node_modules/**'],
          globalSetup: ['test/support/buildSetup.ts', 'test/support/globalSetup.ts'],
        },
      },
      // `npm run test:slow`: end-to-end runs of the biggest inputs (a 70,000-record and a 16 MiB plan
      // through decide, projection, outbox and delivery: tens of minutes on 2 cores), outside `npm test`.
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/**/*.slow.test.ts'],
          globalSetup: ['test/support/buildSetup.ts', 'test/support/globalSetup.ts'],
        },
      },
    ],
  },
});
