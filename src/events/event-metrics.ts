import { Injectable } from '@nestjs/common';
import { DbMetrics } from '../db/db-metrics';
import { MetricsRegistry } from '../observability/metrics/metrics-registry';
import { HORIZON_LAG_SQL } from './feed.repository';
import { StreamStats } from './stream-stats';

/**
 * The events' families: how far the feed's horizon holds readers back (a query at scrape time),
 * and, for every stream of this instance (the notification streams included), the open streams by
 * kind, the frames they were sent, and the streams cut off.
 */
@Injectable()
export class EventMetrics {
  constructor(metrics: MetricsRegistry, stats: StreamStats, db: DbMetrics) {
    const lag = db.scrapeQuery<{ lag: number }>(HORIZON_LAG_SQL);
    metrics.gauge({
      name: 'svc_feed_horizon_lag_seconds',
      help: 'Age of the oldest committed event that feed and stream readers cannot see yet (seconds since its creation): it grows while a transaction left open holds the horizon, whether or not anything new is written. 0 when all are readable.',
      async collect() {
        const rows = await lag.get();
        // NaN while it cannot be measured (the database is away): a gap, never a reassuring 0.
        this.set(rows ? Number(rows[0]?.lag ?? 0) : Number.NaN);
      },
    });
    metrics.gauge({
      name: 'svc_stream_subscribers',
      help: 'Live streams open on this instance, by kind: game (GET /v1/events), group (GET /v1/events/:groupId), admin (the operator\'s), notifications (GET /v1/users/:userId/notifications/stream).',
      labelNames: ['kind'] as const,
      collect() {
        for (const [kind, n] of Object.entries(stats.open())) this.set({ kind }, n);
      },
    });
    metrics.counterOf(
      {
        name: 'svc_stream_frames_sent_total',
        help: 'Event frames written to live streams (replayed or live; a notification stream\'s read marks included; heartbeats not counted), by stream kind.',
        labelNames: ['kind'] as const,
      },
      () => stats.framesSent,
    );
    metrics.counterOf(
      {
        name: 'svc_stream_subscribers_cut_off_total',
        help: 'Streams the service ended, by reason: slow (over 4 MiB of frames unread by the client), rewound (the database no longer holds an event they were sent: restored or failed over), unheard (notification streams of an instance whose LISTEN connection was lost: read marks announced meanwhile never reached them).',
        labelNames: ['reason'] as const,
      },
      () => stats.cutOff,
    );
  }
}
