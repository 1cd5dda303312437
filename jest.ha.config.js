// The high-availability suite (npm run test:ha): the reference deployment of deploy/ha (etcd, three
// Patroni-managed PostgreSQL 15 nodes, HAProxy, two built instances) started by deploy/ha/ha.sh, and
// its primary killed and switched over under load. It brings its own database cluster, so none of
// the other suites' global setup; one file at a time (the machine has two cores, the timings matter).
const base = require('./jest.config');

module.exports = {
  testTimeout: 300000,
  maxWorkers: 1,
  projects: [{ ...base.projects[1], displayName: 'ha', testMatch: ['<rootDir>/test/ha/**/*.ha-spec.ts'] }],
};
