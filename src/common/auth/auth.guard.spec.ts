import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ACTING_OPERATOR } from './acting-operator.decorator';
import { AuthGuard } from './auth.guard';
import { GAME_CONTEXT } from './game-context';
import { AdminRoute, PublicRoute } from './route-auth.decorator';

class GameRoutes {
  list(): void {}
}
@AdminRoute()
class AdminRoutes {
  list(): void {}
}
class MixedRoutes {
  @PublicRoute()
  preview(): void {}
}

const contextOf = (controller: new () => object, handler: string, req: object): ExecutionContext =>
  ({
    getType: () => 'http',
    getClass: () => controller,
    getHandler: () => (controller.prototype as Record<string, unknown>)[handler],
    switchToHttp: () => ({ getRequest: () => req }),
  }) as unknown as ExecutionContext;

describe('AuthGuard: a route whose credential was not checked on arrival fails closed', () => {
  const guard = new AuthGuard(new Reflector());

  it('refuses a game route without a game context, and an admin route without an operator', () => {
    expect(() => guard.canActivate(contextOf(GameRoutes, 'list', {}))).toThrow(expect.objectContaining({ code: 'invalid_api_key' }));
    expect(() => guard.canActivate(contextOf(AdminRoutes, 'list', {}))).toThrow(expect.objectContaining({ code: 'invalid_admin_token' }));
    // A game context does not open an admin route.
    expect(() => guard.canActivate(contextOf(AdminRoutes, 'list', { [GAME_CONTEXT]: { gameId: 'g' } }))).toThrow();
  });

  it('lets through what the arrival check attached, and public routes', () => {
    expect(guard.canActivate(contextOf(GameRoutes, 'list', { [GAME_CONTEXT]: { gameId: 'g' } }))).toBe(true);
    expect(guard.canActivate(contextOf(AdminRoutes, 'list', { [ACTING_OPERATOR]: { id: null } }))).toBe(true);
    expect(guard.canActivate(contextOf(MixedRoutes, 'preview', {}))).toBe(true);
  });
});
