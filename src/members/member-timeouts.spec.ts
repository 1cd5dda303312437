import { ApiError } from '../common/errors/api-error';
import { MAX_TIMEOUT_MS, timeoutEnd } from './member-timeouts.service';

describe('timeoutEnd', () => {
  const now = Date.UTC(2026, 10, 29, 12, 0, 0);

  it.each([
    ['30s', 30_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['28d', MAX_TIMEOUT_MS],
    ['672h', MAX_TIMEOUT_MS],
  ])('%s ends that long after now', (duration, ms) => {
    expect(timeoutEnd(duration, now).getTime()).toBe(now + ms);
  });

  it.each([
    ['0s', 'duration must be a positive integer'],
    ['-1m', 'duration must be a positive integer'],
    ['1.5h', 'duration must be a positive integer'],
    ['1w', 'duration must be a positive integer'],
    ['', 'duration must be a positive integer'],
    ['29d', 'duration must be at most 28d'],
    ['2419201s', 'duration must be at most 28d'],
  ])('refuses %p with 400 naming duration', (duration, message) => {
    let thrown: unknown;
    try {
      timeoutEnd(duration, now);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).message).toContain(message);
  });
});
