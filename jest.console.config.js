// The console suite (npm run test:console): the built console in Debian's Chromium, driven by
// playwright-core, against the real service on a real Postgres. One file at a time: each holds a browser.
const base = require('./jest.config');

module.exports = {
  testTimeout: 60000,
  maxWorkers: 1,
  globalSetup: base.globalSetup,
  globalTeardown: base.globalTeardown,
  projects: [{ ...base.projects[1], displayName: 'console', testMatch: ['<rootDir>/console/test/**/*.spec.ts'] }],
};
