import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { TokenBuckets, type TakeResult } from './token-bucket';

/** The source bucket is this many times the key bucket (SPEC §8). */
const SOURCE_FACTOR = 20;

/**
 * The per-process limiter of the `/v1` surface: a bucket per API-key prefix and a larger one per
 * source address. Either rate setting at 0 turns both off (DECISIONS §22).
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  readonly enabled: boolean;
  private readonly byKey: TokenBuckets;
  private readonly bySource: TokenBuckets;
  private readonly pruner: NodeJS.Timeout | null;
  /** Requests refused, by the bucket that refused them (for the metrics). */
  readonly refusals = { source: 0, key: 0 };

  constructor(@Inject(SETTINGS) settings: Settings) {
    const { rateLimitPerMinute: perMinute, rateLimitBurst: burst } = settings;
    this.enabled = perMinute > 0 && burst > 0;
    this.byKey = new TokenBuckets({ perMinute, burst });
    this.bySource = new TokenBuckets({ perMinute: perMinute * SOURCE_FACTOR, burst: burst * SOURCE_FACTOR });
    this.pruner = this.enabled ? setInterval(() => this.prune(), 60_000).unref() : null;
  }

  /** Drains the source bucket, then the key bucket when the request carries a parseable key. */
  take(source: string, keyPrefix: string | null, now = Date.now()): TakeResult {
    if (!this.enabled) return { allowed: true };
    const bySource = this.bySource.take(source, now);
    if (!bySource.allowed) this.refusals.source++;
    if (!bySource.allowed || keyPrefix === null) return bySource;
    const byKey = this.byKey.take(keyPrefix, now);
    if (!byKey.allowed) this.refusals.key++;
    return byKey;
  }

  onModuleDestroy(): void {
    if (this.pruner) clearInterval(this.pruner);
  }

  private prune(): void {
    const now = Date.now();
    this.byKey.prune(now);
    this.bySource.prune(now);
  }
}
