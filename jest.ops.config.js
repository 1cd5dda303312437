// The operations suite (npm run test:ops): the built service as real processes, watched the way an
// SRE would watch it (a real Prometheus scraping its metrics, the alert rules through promtool and
// each made to fire by a real fault, the dashboard's queries; the tracing checks sit beside them).
// One file at a time: each starts its own instances and tools on free ports.
const base = require('./jest.config');

module.exports = {
  testTimeout: 180000,
  maxWorkers: 1,
  globalSetup: base.globalSetup,
  globalTeardown: base.globalTeardown,
  projects: [{ ...base.projects[1], displayName: 'ops', testMatch: ['<rootDir>/test/ops/**/*.ops-spec.ts'] }],
};
