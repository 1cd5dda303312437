import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { Settings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.module';
import { ApiError } from '../errors/api-error';
import { ACTING_OPERATOR, type WithActingOperator } from './acting-operator.decorator';
import { API_KEY_LOOKUP, API_KEY_USE_LOG, type ApiKeyLookup, type ApiKeyUseLog, type ResolvedApiKey } from './api-key-lookup';
import { bearerToken, parseApiKey, secretMatches, secretMatchesCached, tokensEqual } from './api-key-format';
import { keyRefusal } from './api-key-scopes';
import { GAME_CONTEXT, type WithGameContext } from './game-context';
import { OPERATOR_LOOKUP, type OperatorLookup } from './operator-lookup';
import { ROOT_OPERATOR, roleAllows, type OperatorRole } from './operator-roles';
import { parseOperatorToken } from './operator-token';
import type { RouteCredential } from './route-credential';

export type AuthenticatedRequest = { headers: IncomingHttpHeaders; method: string } & WithGameContext & WithActingOperator;

/**
 * Checks a request's credential against what its route takes (SPEC §5): an API key on game
 * routes, the admin token or an operator's token (within its role) on admin routes, nothing on
 * public ones. The two credentials are never interchangeable. Runs on arrival, before the body is
 * read (DECISIONS §31), and attaches what it found to the request for the handler.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(API_KEY_LOOKUP) private readonly keys: ApiKeyLookup,
    @Inject(API_KEY_USE_LOG) private readonly keyUses: ApiKeyUseLog,
    @Inject(OPERATOR_LOOKUP) private readonly operators: OperatorLookup,
  ) {}

  /** Synchronous when nothing must be loaded (a cached key, the root token): the common case costs no promise. */
  authenticate(req: AuthenticatedRequest, route: RouteCredential): void | Promise<void> {
    if (route.kind === 'public') return;
    return route.kind === 'admin' ? this.checkAdmin(req, route.role) : this.checkGameKey(req);
  }

  /**
   * The root token (current, or the previous one during a rotation) may do everything; an
   * operator's token what its role allows. With no root token set, admin routes are off for all.
   */
  private checkAdmin(req: AuthenticatedRequest, needed: OperatorRole): void | Promise<void> {
    const { adminToken, adminTokenPrevious } = this.settings;
    if (!adminToken) {
      throw new ApiError('invalid_admin_token', 'admin endpoints are disabled: the server has no SVC_ADMIN_TOKEN set');
    }
    const token = bearerToken(req.headers.authorization);
    if (token && (tokensEqual(token, adminToken) || (adminTokenPrevious !== undefined && tokensEqual(token, adminTokenPrevious)))) {
      req[ACTING_OPERATOR] = ROOT_OPERATOR;
      return;
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
    });
  }

  private checkGameKey(req: AuthenticatedRequest): void | Promise<void> {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new ApiError('invalid_api_key', 'missing API key: send Authorization: Bearer <API_KEY>');
    const parsed = parseApiKey(token);
    if (!parsed) throw new ApiError('invalid_api_key', 'malformed API key: expected jk_<prefix>.<secret>');
    const accept = (key: ResolvedApiKey | null): void => {
      if (!key || !secretMatchesCached(parsed.secret, key) || key.revoked) {
        throw new ApiError('invalid_api_key', 'unknown, revoked or wrong API key');
      }
      // Checked per request, not when cached: a cached key may expire while it sits in memory.
      const refusal = keyRefusal(key, req.method);
      if (refusal) throw refusal;
      this.keyUses.note(key.keyId);
      req[GAME_CONTEXT] = { gameId: key.gameId, keyId: key.keyId, keyPrefix: key.prefix, scopes: key.scopes, expiresAt: key.expiresAt };
    };
    const key = this.keys.resolve(parsed.prefix);
    return key instanceof Promise ? key.then(accept) : accept(key);
  }
}
