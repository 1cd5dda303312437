import createClient, { type Client } from 'openapi-fetch';
import { ConsistencyTracker } from './consistency.js';
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
  /**
   * Where the client keeps the consistency token of its writes, sent on its later reads so they see
   * those writes even when the service reads from a replica. Pass one tracker to several clients to
   * share it; by default each client has its own.
   */
  consistency?: ConsistencyTracker;
}

/**
 * A client whose calls answer `{ data, error, response }` as openapi-fetch does: errors are values
 * here, typed per route. `paginate` and `followFeed` throw `GuildhallError` instead. Its reads
 * carry the consistency token of its last write by themselves (ConsistencyTracker).
 */
export function createGuildhallClient({ baseUrl, apiKey, fetch, consistency = new ConsistencyTracker() }: GuildhallClientOptions): GuildhallClient {
  const client = createClient<paths>({ baseUrl, fetch, headers: { authorization: `Bearer ${apiKey}` } });
  client.use(consistency);
  return client;
}
