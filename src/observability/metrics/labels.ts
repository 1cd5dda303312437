/**
 * Label values of the service's metrics. Each comes from a small fixed set (a route template, a
 * status class, an outcome), never from an id: the number of series stays the same however many
 * games, groups and users there are. Pure, so the bounds are unit-tested.
 */

/** The route label of a request no route matched (404 on an unknown path): never the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';
/** What a label becomes past its bound, or when its value is not one of the expected ones. */
export const OTHER = 'other';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The HTTP method, from the standard few; an invented one (`BREW`) is `other`. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : OTHER;
}

/** The SQLSTATE class (its first two characters: `23` integrity, `40` rollback, `57` operator intervention). */
export function sqlStateClass(code: unknown): string {
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : OTHER;
}

/**
 * A label that takes at most `max` distinct values: the first `max` seen are kept, later new ones
 * are `other`. Route templates come from the code and are a few hundred at most; this is the
 * safety net should a route ever be registered from data.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(readonly max: number) {}

  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max) return OTHER;
    this.seen.add(value);
    return value;
  }
}

/** The route label: the template Fastify matched (`/v1/groups/:id`), or {@link UNMATCHED_ROUTE}. */
export function routeLabel(template: string | undefined, bound: BoundedLabel): string {
  return template ? bound.of(template) : UNMATCHED_ROUTE;
}
