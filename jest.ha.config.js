// The high-availability suite (npm run test:ha): the reference deployment of deploy/ha with each etcd
// member, Patroni node, HAProxy and instance in a network namespace of its own (deploy/ha/ha.sh run
// in each), under load through a SIGKILLed primary, a switchover, partitions and its return, with a
// real Prometheus on the HA alert rules, then a point-in-time recovery from the WAL archive; and the
// deployment's files (no loopback host, secrets 0600, promtool). It brings its own database
// cluster, so none of the other suites' global setup; one file at a time (two cores, timings matter).
const base = require('./jest.config');

module.exports = {
  testTimeout: 300000,
  maxWorkers: 1,
  projects: [{ ...base.projects[1], displayName: 'ha', testMatch: ['<rootDir>/test/ha/**/*.ha-spec.ts'] }],
};
