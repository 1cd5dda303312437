import { ApiError } from '../common/errors/api-error';
import { CHURN_BINS, CHURN_LOWER_BOUNDS, DAY_MS, HOUR_MS, growthBucketSize, growthWindow, parseTopN } from './analytics-window';

const at = (iso: string) => new Date(iso);
const T0 = '2024-06-01T00:00:00.000Z';
const plus = (ms: number) => new Date(Date.parse(T0) + ms);

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('CHURN_BINS', () => {
  it('are the five half-open bins of SPEC §4, each starting where the previous ends', () => {
    expect(CHURN_BINS.map((b) => [b.label, b.minMs, b.maxMs])).toEqual([
      ['< 1h', null, 3600000],
      ['1h - 1d', 3600000, 86400000],
      ['1d - 1w', 86400000, 604800000],
      ['1w - 1mo', 604800000, 2592000000],
      ['1mo+', 2592000000, null],
    ]);
    expect(CHURN_LOWER_BOUNDS).toEqual([3600000, 86400000, 604800000, 2592000000]);
  });
});

describe('growthBucketSize', () => {
  it.each<[string, number, number]>([
    ['1 ms', 1, HOUR_MS],
    ['exactly 1 day', DAY_MS, HOUR_MS],
    ['1 day + 1 ms', DAY_MS + 1, 6 * HOUR_MS],
    ['exactly 7 days', 7 * DAY_MS, 6 * HOUR_MS],
    ['7 days + 1 ms', 7 * DAY_MS + 1, DAY_MS],
    ['exactly 30 days', 30 * DAY_MS, DAY_MS],
    ['30 days + 1 ms', 30 * DAY_MS + 1, 3 * DAY_MS],
    ['exactly 90 days', 90 * DAY_MS, 3 * DAY_MS],
    ['90 days + 1 ms', 90 * DAY_MS + 1, 7 * DAY_MS],
    ['200 days', 200 * DAY_MS, 7 * DAY_MS],
  ])('a window of %s uses buckets of %d ms', (_case, windowMs, size) => {
    expect(growthBucketSize(windowMs)).toBe(size);
  });
});

describe('growthWindow', () => {
  it('cuts a 1-day window into 24 hourly buckets, each boundary the end of its bucket, the last one `to`', () => {
    const sut = growthWindow(at(T0), plus(DAY_MS));
    expect(sut.bucketSizeMs).toBe(HOUR_MS);
    expect(sut.boundaries).toHaveLength(24);
    expect(sut.boundaries[0]).toBe(Date.parse(T0) + HOUR_MS);
    expect(sut.boundaries[23]).toBe(Date.parse(T0) + DAY_MS);
  });

  it('cuts the last bucket short at `to` when the window is not a whole number of buckets', () => {
    const sut = growthWindow(at(T0), plus(DAY_MS + 1));
    expect(sut.bucketSizeMs).toBe(6 * HOUR_MS);
    expect(sut.boundaries.map((b) => b - Date.parse(T0))).toEqual([6, 12, 18, 24].map((h) => h * HOUR_MS).concat(DAY_MS + 1));
  });

  it('allows exactly 100 weekly buckets and refuses 101 with a bad_request', () => {
    expect(growthWindow(at(T0), plus(700 * DAY_MS)).boundaries).toHaveLength(100);
    const err = errorOf(() => growthWindow(at(T0), plus(700 * DAY_MS + 1)));
    expect(err).toMatchObject({ code: 'bad_request' });
    expect(err.message).toMatch(/101 buckets/);
  });

  it.each([
    ['equal', 0],
    ['reversed', -1],
  ])('refuses from and to that are %s', (_case, delta) => {
    expect(errorOf(() => growthWindow(at(T0), plus(delta))).message).toBe('from must be earlier than to');
  });
});

describe('parseTopN', () => {
  it('defaults to 5', () => {
    expect(parseTopN(undefined)).toBe(5);
  });

  it.each([
    ['1', 1],
    ['10', 10],
  ])('accepts %s', (raw, n) => {
    expect(parseTopN(raw)).toBe(n);
  });

  it.each(['0', '11', '-1', '2.5', 'five', '', ['3', '4']])('refuses %p', (raw) => {
    expect(errorOf(() => parseTopN(raw)).message).toBe('topN must be an integer from 1 to 10');
  });
});
