// The contract run (npm run test:contract): the built service behind `prism proxy --errors`, every
// operation of its /openapi.json called through it (test/contract). One file, one service.
// @stoplight/prism-cli is pinned at 5.14.2, the last release that runs on Node 20, and package.json
// holds its prism-core, prism-http and prism-http-server at their last releases for Node 18+: the
// newer ones, which its ^ ranges would pick, declare Node >= 24.14.
const base = require('./jest.config');

module.exports = {
  testTimeout: 120000,
  maxWorkers: 1,
  globalSetup: base.globalSetup,
  globalTeardown: base.globalTeardown,
  projects: [{ ...base.projects[1], displayName: 'contract', testMatch: ['<rootDir>/test/contract/**/*.contract-spec.ts'] }],
};
