/**
 * The name of a user id parameter the request's route left empty (`DELETE /v1/users/`,
 * `GET /v1/users//friends`), or null. The router matches an empty segment as an empty parameter;
 * an empty user id is 400 naming the field, before any handler runs. Other empty parameters are
 * left to their routes.
 */
export function emptyUserIdParam(params: unknown): string | null {
  if (typeof params !== 'object' || params === null) return null;
  for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
    if (value === '' && /userId$/i.test(name)) return name;
  }
  return null;
}
