import { withQuery, type Query } from './api';

/** Console routes live in the URL's fragment (#/games/…), so the server serves one page. */
export interface Route {
  path: string[];
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.startsWith('#/') ? location.hash.slice(2) : 'games';
  const [path, qs = ''] = raw.split('?', 2);
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qs) };
}

/** The href of a console route. */
export function href(segments: string[], query: Query = {}): string {
  return `#${withQuery(`/${segments.map(encodeURIComponent).join('/')}`, query)}`;
}

/** The current route's query with some values changed (an empty value drops the parameter). */
export function hrefWith(route: Route, changes: Query): string {
  const query: Query = Object.fromEntries(route.query.entries());
  for (const name of new Set(route.query.keys())) {
    const all = route.query.getAll(name);
    if (all.length > 1) query[name] = all;
  }
  return href(route.path, { ...query, ...changes });
}

export function go(to: string): void {
  location.hash = to.slice(1);
}
