// The reliability suite (npm run test:reliability): each case runs the built service as real
// processes on a real Postgres and attacks it (hostile input, other games' ids, crashes, outages).
// One file at a time: the cases measure recovery and would disturb each other's timing.
const base = require('./jest.config');

module.exports = {
  testTimeout: 120000,
  maxWorkers: 1,
  globalSetup: base.globalSetup,
  globalTeardown: base.globalTeardown,
  projects: [{ ...base.projects[1], displayName: 'reliability', testMatch: ['<rootDir>/test/reliability/**/*.rel-spec.ts'] }],
};
