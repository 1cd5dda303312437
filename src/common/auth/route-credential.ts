import type { INestApplication } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { OperatorRole } from './operator-roles';
import { OPERATOR_ROLE, ROUTE_AUTH, type RouteAuth } from './route-auth.decorator';

/** The credential a route takes, with the least operator role of an admin route. */
export type RouteCredential = { kind: 'public' } | { kind: 'game' } | { kind: 'admin'; role: OperatorRole };

/** Where the credential rides in a Fastify route's config. */
const CONFIG_KEY = 'svcCredential';

/**
 * Writes each controller route's credential into its Fastify route config, where the request's
 * first hook reads it: the credential is then checked on arrival, before the body is read
 * (DECISIONS §31), rather than by a guard that runs only after the body was parsed. Read from the
 * same metadata as always (@AdminRoute, @PublicRoute, @MinRole; game by default; the handler's
 * own before its controller's). Must run after the app is created and before it is initialised,
 * which is when its routes are registered with Fastify.
 */
export function stampRouteCredentials(app: INestApplication): void {
  const reflector = app.get(Reflector);
  const scanner = app.get(MetadataScanner);
  for (const wrapper of app.get(DiscoveryService).getControllers()) {
    const controller = wrapper.metatype as (abstract new (...args: never[]) => unknown) | null;
    if (!controller) continue;
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name];
      if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const targets = [handler, controller];
      const kind = reflector.getAllAndOverride<RouteAuth | undefined>(ROUTE_AUTH, targets) ?? 'game';
      const credential: RouteCredential =
        kind === 'admin' ? { kind, role: reflector.getAllAndOverride<OperatorRole | undefined>(OPERATOR_ROLE, targets) ?? 'owner' } : { kind };
      RouteConfig({ [CONFIG_KEY]: credential })(proto, name, { value: handler });
    }
  }
}

/**
 * The credential of the route a request matched. Routes Nest did not register (the API document,
 * the console's files) take none; an unknown route has no credential to check (it is a 404).
 */
export function routeCredentialOf(config: unknown): RouteCredential {
  const credential = (config as Record<string, RouteCredential | undefined> | undefined)?.[CONFIG_KEY];
  return credential ?? { kind: 'public' };
}
