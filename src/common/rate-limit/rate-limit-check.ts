import type { IncomingMessage } from 'node:http';
import { apiKeyFromHeader } from '../auth/api-key-format';
import { ApiError } from '../errors/api-error';
import { clientAddress } from './client-address';
import type { RateLimiter } from './rate-limiter';

/**
 * The limiter's verdict on one request, taken on arrival: before routing, so every request to the
 * `/v1` surface counts (unknown routes too), and before authentication (DECISIONS §16), so a
 * well-formed but unknown key still drains its prefix's bucket. Null means go ahead.
 */
export function rateLimitCheck(limiter: RateLimiter, trustProxy: boolean) {
  return (req: IncomingMessage): ApiError | null => {
    if (!limiter.enabled || !req.url?.startsWith('/v1/')) return null;
    const key = apiKeyFromHeader(req.headers.authorization);
    const verdict = limiter.take(clientAddress(req, trustProxy), key?.prefix ?? null);
    if (verdict.allowed) return null;
    return new ApiError('rate_limit_exceeded', `rate limit exceeded; retry in ${verdict.retryAfterSeconds} s`, {
      'retry-after': String(verdict.retryAfterSeconds),
    });
  };
}
