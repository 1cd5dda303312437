import { Global, Inject, Injectable, Module } from '@nestjs/common';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { MetricsRegistry } from '../../observability/metrics/metrics-registry';
import { GameBulkhead } from './game-bulkhead';

/** Exports a game may have in flight on an instance: each may hold a spooled answer on disk while its client reads. */
export const EXPORTS_IN_FLIGHT_PER_GAME = 4;
/** How long an expensive read waits in its game's line before its 429. */
const MAX_WAIT_MS = 5_000;

/**
 * The bulkheads between games on this instance (docs/security.md):
 * - `reads`: the database work of a game's expensive reads (a search, a feed page, a page of a
 *   stream's replay, the reading of an export), at most GAME_READ_CONCURRENCY at once (half the
 *   pool by default), four times as many waiting, the rest 429. The rest of the pool stays free
 *   for every other game's requests, whatever one game asks for.
 * - `exports`: a game's exports from start to last byte, EXPORTS_IN_FLIGHT_PER_GAME at once, none
 *   waiting: each may keep a spooled answer until its client has read it.
 */
@Injectable()
export class GameReads {
  readonly reads: GameBulkhead;
  readonly exports: GameBulkhead;

  constructor(@Inject(SETTINGS) settings: Settings, metrics: MetricsRegistry) {
    const limit = settings.gameReadConcurrency;
    this.reads = new GameBulkhead({ what: 'expensive reads', limit, queue: 4 * limit, maxWaitMs: MAX_WAIT_MS });
    this.exports = new GameBulkhead({ what: 'exports', limit: EXPORTS_IN_FLIGHT_PER_GAME, queue: 0, maxWaitMs: MAX_WAIT_MS });
    const bulkheads = { reads: this.reads, exports: this.exports };
    const each = (pick: (b: GameBulkhead) => number) => () => Object.fromEntries(Object.entries(bulkheads).map(([k, b]) => [k, pick(b)]));
    metrics.gauge({
      name: 'svc_game_bulkhead_running',
      help: 'Expensive reads (reads) and exports (exports) running now, over all games, on this instance.',
      labelNames: ['bulkhead'] as const,
      collect() {
        for (const [k, v] of Object.entries(each((b) => b.load().running)())) this.set({ bulkhead: k }, v);
      },
    });
    metrics.gauge({
      name: 'svc_game_bulkhead_waiting',
      help: 'Expensive reads waiting for one of their game\'s slots, on this instance.',
      labelNames: ['bulkhead'] as const,
      collect() {
        for (const [k, v] of Object.entries(each((b) => b.load().waiting)())) this.set({ bulkhead: k }, v);
      },
    });
    metrics.counterOf(
      {
        name: 'svc_game_bulkhead_refusals_total',
        help: 'Requests answered 429 because their game had too many expensive reads or exports at once on this instance.',
        labelNames: ['bulkhead'] as const,
      },
      each((b) => b.load().refused),
    );
  }
}

@Global()
@Module({ providers: [GameReads], exports: [GameReads] })
export class BulkheadModule {}
