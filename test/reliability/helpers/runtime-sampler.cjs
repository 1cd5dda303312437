// Preloaded into the service's process by the soak case (node --require): once a second it appends
// the process's RSS, its event-loop delay (over the last second, and since the steady state began),
// the share of that second its loop was busy (a delay with a busy loop is work, with an idle one
// it is waiting for a core), its count of active handles (sockets, ...) and the bytes its sockets hold unsent to
// SOAK_SAMPLE_FILE as one JSON line. The file
// SOAK_SAMPLE_FILE + '.steady' marks the end of the warm-up: once it exists, the steady-state
// histogram starts again (a signal would not do: the service stops on SIGUSR2). At that mark and
// at SOAK_SAMPLE_FILE + '.end' it also collects the whole heap and appends what stays live to
// SOAK_SAMPLE_FILE + '.marks': a leak is what survives a full collection, while the one-second
// samples rise and fall with when V8 chooses to collect. The service itself is not changed.
'use strict';
const { appendFileSync, existsSync } = require('node:fs');
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');

const file = process.env.SOAK_SAMPLE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const steady = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  steady.enable();
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  let warm = false;
  let ended = false;
  let elu = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    if (!warm && existsSync(`${file}.steady`)) {
      warm = true;
      markLive('steady', gc);
      steady.reset();
    }
    if (!ended && existsSync(`${file}.end`)) {
      ended = true;
      markLive('end', gc);
    }
    const busy = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    const sample = {
      at: Date.now(),
      rss: process.memoryUsage.rss(),
      heapUsed: process.memoryUsage().heapUsed,
      delayP99Ms: delay.percentile(99) / 1e6,
      delayMaxMs: delay.max / 1e6,
      steadyDelayP99Ms: steady.percentile(99) / 1e6,
      utilization: busy.utilization,
      handles: process.getActiveResourcesInfo().filter((r) => r !== 'Timeout').length,
      ...socketBuffers(),
    };
    delay.reset();
    appendFileSync(file, `${JSON.stringify(sample)}\n`);
  }, 1_000);
  timer.unref();
}

/**
 * What stays live after full collections (two: the first may only run the finalizers that free
 * what the second collects).
 */
function markLive(mark, gc) {
  gc();
  gc();
  const m = process.memoryUsage();
  const line = { mark, at: Date.now(), rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
  appendFileSync(`${file}.marks`, `${JSON.stringify(line)}\n`);
}

/** Bytes the process holds for its sockets to send: in total, and for the worst one. */
function socketBuffers() {
  let total = 0;
  let max = 0;
  for (const h of process._getActiveHandles()) {
    const n = typeof h.writableLength === 'number' ? h.writableLength : 0;
    total += n;
    max = Math.max(max, n);
  }
  return { socketBufferedBytes: total, socketBufferedMaxBytes: max };
}
