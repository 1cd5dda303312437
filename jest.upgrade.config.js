// The upgrade suite (npm run test:upgrade): a rolling upgrade from the previous release to this build
// and back, as real processes on one database under load (test/upgrade). The main suite's global
// setup finds or starts the PostgreSQL server; the databases are the suite's own (empty, so the
// previous release's migrations make them). One file at a time: two cores, and the timings matter.
const base = require('./jest.config');

module.exports = {
  // The first run builds the previous release (npm ci and npm run build in a cache directory).
  testTimeout: 600000,
  maxWorkers: 1,
  globalSetup: base.globalSetup,
  globalTeardown: base.globalTeardown,
  projects: [{ ...base.projects[1], displayName: 'upgrade', testMatch: ['<rootDir>/test/upgrade/*.upgrade-spec.ts'] }],
};
