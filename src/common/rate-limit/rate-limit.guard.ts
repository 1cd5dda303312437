import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { apiKeyFromHeader } from '../auth/api-key-format';
import { ApiError } from '../errors/api-error';
import { clientAddress } from './client-address';
import { RateLimiter } from './rate-limiter';

type Request = { headers: IncomingHttpHeaders; url?: string; socket?: { remoteAddress?: string } };

/**
 * Applies the limiter to every `/v1` route before authentication runs (DECISIONS §16): a
 * well-formed but unknown key still drains its prefix's bucket.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    if (!this.limiter.enabled || ctx.getType() !== 'http') return true;
    const req = ctx.switchToHttp().getRequest<Request>();
    if (!req.url?.startsWith('/v1/')) return true;
    const key = apiKeyFromHeader(req.headers.authorization);
    const verdict = this.limiter.take(clientAddress(req, this.settings.trustProxy), key?.prefix ?? null);
    if (verdict.allowed) return true;
    throw new ApiError('rate_limit_exceeded', `rate limit exceeded; retry in ${verdict.retryAfterSeconds} s`, {
      'retry-after': String(verdict.retryAfterSeconds),
    });
  }
}
