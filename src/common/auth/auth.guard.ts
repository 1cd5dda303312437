import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { ApiError } from '../errors/api-error';
import { API_KEY_LOOKUP, type ApiKeyLookup } from './api-key-lookup';
import { bearerToken, parseApiKey, secretMatchesCached, tokensEqual } from './api-key-format';
import type { ResolvedApiKey } from './api-key-lookup';
import { keyRefusal } from './api-key-scopes';
import { GAME_CONTEXT, type WithGameContext } from './game-context';
import { ROUTE_AUTH, type RouteAuth } from './route-auth.decorator';

type Request = { headers: IncomingHttpHeaders; method: string } & WithGameContext;

/**
 * Authenticates every route by the kind it declares (SPEC §5): an API key on game routes (the
 * default), the admin token on admin routes, nothing on public ones. The two credentials are
 * never interchangeable.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(API_KEY_LOOKUP) private readonly keys: ApiKeyLookup,
  ) {}

  /** Each handler's kind, read from its metadata once: the guard runs on every request. */
  private readonly kinds = new WeakMap<object, RouteAuth>();

  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const kind = this.kindOf(ctx);
    if (kind === 'public') return true;
    const req = ctx.switchToHttp().getRequest<Request>();
    if (kind === 'admin') {
      this.checkAdmin(req);
      return true;
    }
    return this.checkGameKey(req);
  }

  private kindOf(ctx: ExecutionContext): RouteAuth {
    const handler = ctx.getHandler();
    let kind = this.kinds.get(handler);
    if (kind === undefined) {
      kind = this.reflector.getAllAndOverride<RouteAuth | undefined>(ROUTE_AUTH, [handler, ctx.getClass()]) ?? 'game';
      this.kinds.set(handler, kind);
    }
    return kind;
  }

  private checkAdmin(req: Request): void {
    const expected = this.settings.adminToken;
    if (!expected) {
      throw new ApiError('invalid_admin_token', 'admin endpoints are disabled: the server has no SVC_ADMIN_TOKEN set');
    }
    const token = bearerToken(req.headers.authorization);
    if (!token || !tokensEqual(token, expected)) {
      throw new ApiError('invalid_admin_token', 'missing or invalid admin token');
    }
  }

  /** Synchronous when the key is cached (the common case), a promise only when it must be loaded. */
  private checkGameKey(req: Request): true | Promise<true> {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new ApiError('invalid_api_key', 'missing API key: send Authorization: Bearer <API_KEY>');
    const parsed = parseApiKey(token);
    if (!parsed) throw new ApiError('invalid_api_key', 'malformed API key: expected jk_<prefix>.<secret>');
    const accept = (key: ResolvedApiKey | null): true => {
      if (!key || !secretMatchesCached(parsed.secret, key) || key.revoked) {
        throw new ApiError('invalid_api_key', 'unknown, revoked or wrong API key');
      }
      // Checked per request, not when cached: a cached key may expire while it sits in memory.
      const refusal = keyRefusal(key, req.method);
      if (refusal) throw refusal;
      req[GAME_CONTEXT] = { gameId: key.gameId, keyId: key.keyId, keyPrefix: key.prefix, scopes: key.scopes, expiresAt: key.expiresAt };
      return true;
    };
    const key = this.keys.resolve(parsed.prefix);
    return key instanceof Promise ? key.then(accept) : accept(key);
  }
}
