import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingHttpHeaders } from 'node:http';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { ApiError } from '../errors/api-error';
import { API_KEY_LOOKUP, type ApiKeyLookup } from './api-key-lookup';
import { bearerToken, parseApiKey, secretMatches, secretMatchesCached, tokensEqual } from './api-key-format';
import type { ResolvedApiKey } from './api-key-lookup';
import { ACTING_OPERATOR, type WithActingOperator } from './acting-operator.decorator';
import { keyRefusal } from './api-key-scopes';
import { GAME_CONTEXT, type WithGameContext } from './game-context';
import { OPERATOR_LOOKUP, type OperatorLookup } from './operator-lookup';
import { ROOT_OPERATOR, roleAllows, type OperatorRole } from './operator-roles';
import { parseOperatorToken } from './operator-token';
import { OPERATOR_ROLE, ROUTE_AUTH, type RouteAuth } from './route-auth.decorator';

type Request = { headers: IncomingHttpHeaders; method: string } & WithGameContext & WithActingOperator;

/**
 * Authenticates every route by the kind it declares (SPEC §5): an API key on game routes (the
 * default), the admin token on admin routes, nothing on public ones. The two credentials are
 * never interchangeable. On admin routes a named operator's token also works, within its role.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(API_KEY_LOOKUP) private readonly keys: ApiKeyLookup,
    @Inject(OPERATOR_LOOKUP) private readonly operators: OperatorLookup,
  ) {}

  /** Each handler's kind, read from its metadata once: the guard runs on every request. */
  private readonly kinds = new WeakMap<object, RouteAuth>();
  private readonly roles = new WeakMap<object, OperatorRole>();

  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const kind = this.kindOf(ctx);
    if (kind === 'public') return true;
    const req = ctx.switchToHttp().getRequest<Request>();
    if (kind === 'admin') return this.checkAdmin(req, this.roleOf(ctx));
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

  /** A handler without a stated role is open to owners only (and a test fails on it). */
  private roleOf(ctx: ExecutionContext): OperatorRole {
    const handler = ctx.getHandler();
    let role = this.roles.get(handler);
    if (role === undefined) {
      role = this.reflector.getAllAndOverride<OperatorRole | undefined>(OPERATOR_ROLE, [handler, ctx.getClass()]) ?? 'owner';
      this.roles.set(handler, role);
    }
    return role;
  }

  /**
   * The root token (current, or the previous one during a rotation) may do everything; an
   * operator's token what its role allows. With no root token set, admin routes are off for all.
   */
  private checkAdmin(req: Request, needed: OperatorRole): true | Promise<true> {
    const { adminToken, adminTokenPrevious } = this.settings;
    if (!adminToken) {
      throw new ApiError('invalid_admin_token', 'admin endpoints are disabled: the server has no SVC_ADMIN_TOKEN set');
    }
    const token = bearerToken(req.headers.authorization);
    if (token && (tokensEqual(token, adminToken) || (adminTokenPrevious !== undefined && tokensEqual(token, adminTokenPrevious)))) {
      req[ACTING_OPERATOR] = ROOT_OPERATOR;
      return true;
    }
    const parsed = token ? parseOperatorToken(token) : null;
    if (!parsed) throw new ApiError('invalid_admin_token', 'missing or invalid admin token');
    return this.operators.find(parsed.prefix).then((operator) => {
      if (!operator || !secretMatches(parsed.secret, operator.tokenHash)) {
        throw new ApiError('invalid_admin_token', 'missing or invalid admin token');
      }
      this.operators.touch(operator.id);
      if (!roleAllows(operator.role, needed)) {
        throw new ApiError('permission_denied', `this route needs the ${needed} role; operator ${operator.name} is ${operator.role}`);
      }
      req[ACTING_OPERATOR] = { id: operator.id, name: operator.name, role: operator.role };
      return true as const;
    });
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
