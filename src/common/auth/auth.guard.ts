import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import { ACTING_OPERATOR, type WithActingOperator } from './acting-operator.decorator';
import { GAME_CONTEXT, type WithGameContext } from './game-context';
import { ROUTE_AUTH, type RouteAuth } from './route-auth.decorator';

/**
 * The credential was checked on arrival (RequestAuthenticator, from the route's config); this
 * guard only makes sure that happened for every route that needs one, so a route the check
 * missed fails closed (401) instead of running unauthenticated.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** Each handler's kind, read from its metadata once: the guard runs on every request. */
  private readonly kinds = new WeakMap<object, RouteAuth>();

  constructor(private readonly reflector: Reflector) {}

  canActivate(ctx: ExecutionContext): boolean {
    if (ctx.getType() !== 'http') return true;
    const kind = this.kindOf(ctx);
    const req = ctx.switchToHttp().getRequest<WithGameContext & WithActingOperator>();
    if (kind === 'game' && !req[GAME_CONTEXT]) throw new ApiError('invalid_api_key', 'missing API key: send Authorization: Bearer <API_KEY>');
    if (kind === 'admin' && !req[ACTING_OPERATOR]) throw new ApiError('invalid_admin_token', 'missing or invalid admin token');
    return true;
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
}
