import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring for the server process. Each entry point imports this
 * module first, so that it holds before any of the app's code has run.
 *
 * V8 watches the object and array literals of hot code: when nearly all objects of one literal
 * survive two scavenges, it allocates that literal's objects in the old generation from then on.
 * Under a burst (the first seconds of load, profiles loading while 50 requests wait) the literals
 * of the request path qualify, though their objects die with the request. The decision is never
 * taken back here: tenured objects give no more feedback, and V8 resets its decisions only after a
 * full collection that keeps under a tenth of the old generation, while the caches' working set
 * keeps about a quarter. A process that drew it ran for its whole life with about 2.7 MB of
 * garbage promoted per scavenge, a full collection every 2-4 s, 50-150 MB more RSS and 1.3-1.9x
 * the CPU a request. Measured on the batch of 100 checks, 8 fresh processes each (2026-12-06): with
 * pretenuring, 4 to 6 in 8 drew it (RSS 200-327 MB, 0.20-0.27 ms a request); without, none of 16
 * (RSS 158-165 MB, 0.15-0.22 ms).
 *
 * Node refuses this flag in NODE_OPTIONS, so it is set here, where every way of starting the
 * server (`npm start`, `npm run start:prod`, `node dist/src/main.js`, the image) passes. V8 reads
 * it when it weighs its feedback, after each scavenge, so setting it at run time takes effect.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
