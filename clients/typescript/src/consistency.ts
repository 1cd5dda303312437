/** The header a write answers with and a later read sends back (docs/read-replicas.md). */
export const CONSISTENCY_HEADER = 'x-svc-consistency';

const READS = new Set(['GET', 'HEAD']);
/** The service takes up to this many tokens on one read. */
const MAX_TOKENS = 16;

interface Exchange {
  request: Request;
  id?: string;
}

/**
 * Read-your-writes across a service that reads from a replica: remembers the `x-svc-consistency`
 * its writes were answered with, and sends them on every later read, so the replica serves a read
 * only once it has those writes (else the primary does).
 *
 * Tokens are opaque: the client cannot tell which of two is further. It does not need to. A write
 * answered after others were answered carries a token at or past theirs, so those are dropped when
 * its answer comes; tokens of writes that were in flight together are all kept, and a read sends
 * each (comma-separated; the service takes the furthest).
 */
export class ConsistencyTracker {
  private held: string[] = [];
  /** The tokens held when each write in flight was sent, by the request's id. */
  private readonly before = new Map<string, readonly string[]>();

  /** The header value sent on reads, once a write has answered a token. */
  get token(): string | undefined {
    return this.held.length ? this.held.join(', ') : undefined;
  }

  // Arrow properties: openapi-fetch calls a middleware's hooks detached from it.
  readonly onRequest = ({ request, id }: Exchange): Request => {
    if (!READS.has(request.method)) {
      if (id !== undefined) this.before.set(id, [...this.held]);
      return request;
    }
    const token = this.token;
    if (token !== undefined && !request.headers.has(CONSISTENCY_HEADER)) request.headers.set(CONSISTENCY_HEADER, token);
    return request;
  };

  readonly onResponse = ({ response, id }: Exchange & { response: Response }): Response => {
    const covered = id === undefined ? undefined : this.before.get(id);
    if (id !== undefined) this.before.delete(id);
    const token = response.headers.get(CONSISTENCY_HEADER);
    if (token === null || !/^[A-Za-z0-9_-]+$/.test(token)) return response;
    const kept = this.held.filter((t) => t !== token && !covered?.includes(t));
    this.held = [...kept, token].slice(-MAX_TOKENS);
    return response;
  };

  readonly onError = ({ id }: { id?: string }): undefined => {
    if (id !== undefined) this.before.delete(id);
    return undefined;
  };
}
