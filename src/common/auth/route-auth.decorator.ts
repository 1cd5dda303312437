import { SetMetadata } from '@nestjs/common';

/**
 * Which credential a route takes (SPEC §5). Game routes are the default, so a route can only
 * be opened by saying so; the API-key and admin-token checks guard disjoint sets of routes.
 */
export type RouteAuth = 'game' | 'admin' | 'public';

export const ROUTE_AUTH = 'svc:route-auth';

/** Needs the admin token (`/v1/admin/*` and `/v1/users/:svcUserId/games`). */
export const AdminRoute = () => SetMetadata(ROUTE_AUTH, 'admin' satisfies RouteAuth);

/** Needs no credential (`GET /`, `GET /healthz`, the invitation preview). */
export const PublicRoute = () => SetMetadata(ROUTE_AUTH, 'public' satisfies RouteAuth);
