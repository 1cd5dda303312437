// Preloaded into the service's process by the soak case (node --require): once a second it appends
// the process's RSS, its event-loop delay since the last sample, and its count of active handles
// (sockets, timers, ...) to SOAK_SAMPLE_FILE as one JSON line. The service itself is not changed.
'use strict';
const { appendFileSync } = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const file = process.env.SOAK_SAMPLE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timer = setInterval(() => {
    const sample = {
      at: Date.now(),
      rss: process.memoryUsage.rss(),
      heapUsed: process.memoryUsage().heapUsed,
      delayP99Ms: delay.percentile(99) / 1e6,
      delayMaxMs: delay.max / 1e6,
      handles: process.getActiveResourcesInfo().filter((r) => r !== 'Timeout').length,
    };
    delay.reset();
    appendFileSync(file, `${JSON.stringify(sample)}\n`);
  }, 1_000);
  timer.unref();
}
