import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { TokenBuckets } from '../common/rate-limit/token-bucket';

/**
 * Passcode attempts on public join (SPEC §8): 5 per minute per (group, user) and 30 per minute per
 * group, so guessing answers 429 rather than 403. Always on, whatever the API limiter's settings
 * (DECISIONS §22).
 */
@Injectable()
export class PasscodeLimiter {
  private readonly perUser = new TokenBuckets({ perMinute: 5, burst: 5 });
  private readonly perGroup = new TokenBuckets({ perMinute: 30, burst: 30 });
  private readonly pruner = setInterval(() => {
    const now = Date.now();
    this.perUser.prune(now);
    this.perGroup.prune(now);
  }, 60_000).unref();

  /** Takes one attempt or throws 429 `rate_limit_exceeded` with Retry-After. */
  take(groupId: string, userId: string, now = Date.now()): void {
    const user = this.perUser.take(`${groupId}\u0000${userId}`, now);
    const verdict = user.allowed ? this.perGroup.take(groupId, now) : user;
    if (!verdict.allowed) {
      throw new ApiError('rate_limit_exceeded', `too many passcode attempts; retry in ${verdict.retryAfterSeconds} s`, {
        'retry-after': String(verdict.retryAfterSeconds),
      });
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.pruner);
  }
}
