import { ApiError } from '../common/errors/api-error';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** SPEC §8: group growth answers with at most this many buckets. */
export const MAX_GROWTH_BUCKETS = 100;
/** SPEC §4 group-growth: the default window when `from` is absent. */
export const DEFAULT_GROWTH_WINDOW_MS = 30 * DAY_MS;

/**
 * The five tenure bins of group churn (SPEC §4), half-open `[minMs, maxMs)`: a tenure exactly on a
 * boundary falls in the higher bin. `lowerBounds` feeds Postgres' width_bucket, which does the same.
 */
export const CHURN_BINS = [
  { label: '< 1h', minMs: null, maxMs: HOUR_MS },
  { label: '1h - 1d', minMs: HOUR_MS, maxMs: DAY_MS },
  { label: '1d - 1w', minMs: DAY_MS, maxMs: 7 * DAY_MS },
  { label: '1w - 1mo', minMs: 7 * DAY_MS, maxMs: 30 * DAY_MS },
  { label: '1mo+', minMs: 30 * DAY_MS, maxMs: null },
] as const;

export const CHURN_LOWER_BOUNDS: readonly number[] = CHURN_BINS.slice(1).map((b) => b.minMs as number);

/** SPEC §4 group-growth: the bucket size follows the window length, each step inclusive. */
export function growthBucketSize(windowMs: number): number {
  if (windowMs <= DAY_MS) return HOUR_MS;
  if (windowMs <= 7 * DAY_MS) return 6 * HOUR_MS;
  if (windowMs <= 30 * DAY_MS) return DAY_MS;
  if (windowMs <= 90 * DAY_MS) return 3 * DAY_MS;
  return 7 * DAY_MS;
}

/**
 * The buckets of a growth window. Bucket i spans [from + i·size, from + (i+1)·size), the last one
 * cut short at `to`; `boundaries[i]` is its end, the instant its active count is read at, so the
 * last boundary is `to` itself, where the groups are ranked.
 */
export interface GrowthWindow {
  fromMs: number;
  toMs: number;
  bucketSizeMs: number;
  boundaries: number[];
}

export function growthWindow(from: Date, to: Date): GrowthWindow {
  const fromMs = from.getTime();
  const toMs = to.getTime();
  if (fromMs >= toMs) throw ApiError.badRequest('from must be earlier than to');
  const bucketSizeMs = growthBucketSize(toMs - fromMs);
  const count = Math.ceil((toMs - fromMs) / bucketSizeMs);
  if (count > MAX_GROWTH_BUCKETS) {
    throw ApiError.badRequest(
      `from and to span ${count} buckets of ${bucketSizeMs / DAY_MS} days; at most ${MAX_GROWTH_BUCKETS} are allowed`,
    );
  }
  const boundaries = Array.from({ length: count }, (_, i) => Math.min(fromMs + (i + 1) * bucketSizeMs, toMs));
  return { fromMs, toMs, bucketSizeMs, boundaries };
}

/** `topN` of group growth: an integer from 1 to 10, default 5 (SPEC §8). */
export function parseTopN(raw: unknown): number {
  if (raw === undefined) return 5;
  const text = typeof raw === 'string' ? raw : '';
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 10) {
    throw ApiError.badRequest('topN must be an integer from 1 to 10');
  }
  return Number(text);
}
