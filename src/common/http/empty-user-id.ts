/** The routes of a player's data (EXTENSIONS X7) and the admin user page that shares their path. */
const PLAYER_DATA_ROUTE = /^\/v1\/(admin\/games\/:gameId\/)?users\/:(userId|externalUserId)(\/export)?$/;

/**
 * The name of the user id parameter a request to a player's data route left empty
 * (`DELETE /v1/users/`, `GET /v1/users//export`), or null. The router matches an empty segment as
 * an empty parameter; for these routes an empty user id is 400 naming the field, as their
 * acceptance asks, before any handler runs. Every other route keeps the rule that a path no route
 * serves is 404 (DECISIONS §14).
 */
export function emptyUserIdParam(routeUrl: string | undefined, params: unknown): string | null {
  if (!routeUrl || !PLAYER_DATA_ROUTE.test(routeUrl) || typeof params !== 'object' || params === null) return null;
  for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
    if (value === '' && /userId$/i.test(name)) return name;
  }
  return null;
}
