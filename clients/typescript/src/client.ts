import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

/** An openapi-fetch client typed with every route of the API document. */
export type GuildhallClient = Client<paths>;

export interface GuildhallClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:8787` (no `/v1`: the paths carry it). */
  baseUrl: string;
  /** A game's API key (`jk_…`), or the admin token for `/v1/admin/*` routes. */
  apiKey: string;
  /** Replaces the global `fetch` (a test double, a proxy agent, another runtime's fetch). */
  fetch?: typeof globalThis.fetch;
}

/**
 * A client whose calls answer `{ data, error, response }` as openapi-fetch does: errors are values
 * here, typed per route. `paginate` and `followFeed` throw `GuildhallError` instead.
 */
export function createGuildhallClient({ baseUrl, apiKey, fetch }: GuildhallClientOptions): GuildhallClient {
  return createClient<paths>({ baseUrl, fetch, headers: { authorization: `Bearer ${apiKey}` } });
}
