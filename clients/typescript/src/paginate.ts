import type { FetchOptions } from 'openapi-fetch';
import type { GuildhallClient } from './client.js';
import { GuildhallError } from './errors.js';
import type { OkBody, Operation, Path, QueryKeys } from './path-types.js';

type Get<P extends Path> = Operation<P, 'get'>;

/** The query parameter that takes the previous page's nextCursor: `cursor`, or `before` on audit logs. */
type CursorParam<P extends Path> = 'cursor' extends QueryKeys<Get<P>> ? 'cursor' : 'before' extends QueryKeys<Get<P>> ? 'before' : never;

type IsPage<B> = [B] extends [never] ? false : B extends { items: unknown[]; nextCursor: string | null } ? true : false;

/** Every GET route answering a keyset page `{ items, nextCursor }`. */
export type PaginatedPath = {
  [P in Path]: IsPage<OkBody<Get<P>>> extends true ? ([CursorParam<P>] extends [never] ? never : P) : never;
}[Path];

/** The type of one item of `P`'s pages. */
export type PageItem<P extends PaginatedPath> = OkBody<Get<P>> extends { items: (infer T)[] } ? T : never;

/** The GET options of `P`: path and query parameters (a cursor to start from included), headers, signal. */
export type PageInit<P extends PaginatedPath> = Omit<FetchOptions<Get<P>>, 'parseAs'>;

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type InitArgs<P extends PaginatedPath> = [RequiredKeys<PageInit<P>>] extends [never] ? [init?: PageInit<P>] : [init: PageInit<P>];

type BeforeCursorPath = { [P in PaginatedPath]: CursorParam<P> extends 'before' ? P : never }[PaginatedPath];

/** The routes paged by `before`; typed so that the compiler asks for any route the document adds. */
const BEFORE_CURSOR: { readonly [P in BeforeCursorPath]: true } = {
  '/v1/groups/{id}/audit': true,
  '/v1/admin/games/{gameId}/audit': true,
  '/v1/admin/games/{gameId}/groups/{groupId}/audit': true,
  '/v1/admin/operator-audit': true,
};

interface UntypedInit {
  params?: { query?: Record<string, unknown> };
}
type UntypedGet = (path: string, init: UntypedInit) => Promise<{ data?: { items: unknown[]; nextCursor: string | null }; error?: unknown; response: Response }>;

/**
 * Every item of a paginated list, page after page, following nextCursor until it is null; one
 * request per page, made when the previous page's items have been consumed. An error answer
 * throws `GuildhallError`.
 *
 * @example for await (const member of paginate(client, '/v1/groups/{id}/members', { params: { path: { id } } })) …
 */
export async function* paginate<P extends PaginatedPath>(client: GuildhallClient, path: P, ...[init]: InitArgs<P>): AsyncGenerator<PageItem<P>, void, undefined> {
  // A path that is a type parameter defeats openapi-fetch's per-route inference; this function's
  // signature carries the types instead.
  const get = client.GET as unknown as UntypedGet;
  const options = (init ?? {}) as UntypedInit;
  const cursorParam = path in BEFORE_CURSOR ? 'before' : 'cursor';
  let query = options.params?.query ?? {};
  for (;;) {
    const { data, error, response } = await get(path, { ...options, params: { ...options.params, query } });
    if (error !== undefined || data === undefined) throw GuildhallError.fromResponse(response, error);
    yield* data.items as PageItem<P>[];
    if (data.nextCursor === null) return;
    query = { ...query, [cursorParam]: data.nextCursor };
  }
}
