import { parseSettings } from '../../config/settings';
import { RateLimiter } from './rate-limiter';

describe('RateLimiter refusals (for the metrics)', () => {
  it('counts each refusal under the bucket that ran dry', () => {
    // Per key: a burst of 2; per source: 20 times that.
    const sut = new RateLimiter(parseSettings({ RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '2' }));
    const now = 1_700_000_000_000;
    try {
      const verdicts = Array.from({ length: 5 }, () => sut.take('203.0.113.1', 'jk_0000000000000001', now).allowed);
      for (let i = 0; i < 45; i++) sut.take('203.0.113.2', null, now);

      expect(verdicts).toEqual([true, true, false, false, false]);
      expect(sut.refusals).toEqual({ key: 3, source: 5 });
    } finally {
      sut.onModuleDestroy();
    }
  });
});
