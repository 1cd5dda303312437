import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/**
 * Which credential a route takes (SPEC §5). Game routes are the default, so a route can only
 * be opened by saying so; the API-key and admin-token checks guard disjoint sets of routes.
 */
export type RouteAuth = 'game' | 'admin' | 'public';

export const ROUTE_AUTH = 'svc:route-auth';

/** Needs the admin token (`/v1/admin/*` and `/v1/users/:svcUserId/games`). */
export const AdminRoute = () => SetMetadata(ROUTE_AUTH, 'admin' satisfies RouteAuth);

/** Marks an operation of the API document as taking no credential (see buildOpenApiDocument). */
export const PUBLIC_OPERATION_EXTENSION = 'x-svc-public';

/**
 * Needs no credential (`GET /`, `GET /healthz`, the invitation preview); the API document says so
 * with `security: []`, whatever its controller's credential.
 */
export const PublicRoute = () => applyDecorators(SetMetadata(ROUTE_AUTH, 'public' satisfies RouteAuth), ApiExtension(PUBLIC_OPERATION_EXTENSION, true));
