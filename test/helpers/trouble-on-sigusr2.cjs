'use strict';
// Loaded into the built server with NODE_OPTIONS=--require by test/e2e/log-lines.e2e-spec.ts: on
// SIGUSR2 the process gets a warning from Node and then an error nothing catches, as a bug would.
process.on('SIGUSR2', () => {
  process.emitWarning('a warning the test asked for');
  setImmediate(() => {
    throw new Error('an error the test asked for');
  });
});
