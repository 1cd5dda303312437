import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { OperatorRole } from './operator-roles';

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

export const OPERATOR_ROLE = 'svc:operator-role';
/** The least operator role of an admin operation, as the API document states it. */
export const OPERATOR_ROLE_EXTENSION = 'x-svc-operator-role';

/**
 * The least operator role an admin handler needs (operator-roles.ts). Every admin handler states
 * one; a handler without is open to `owner` only, and a test fails on it.
 */
export const MinRole = (role: OperatorRole) => applyDecorators(SetMetadata(OPERATOR_ROLE, role), ApiExtension(OPERATOR_ROLE_EXTENSION, role));
