/** The header a write answers with and a later read sends back (docs/read-replicas.md). */
export const CONSISTENCY_HEADER = 'x-svc-consistency';

const READS = new Set(['GET', 'HEAD']);
/** The service takes up to this many tokens on one read. */
const MAX_TOKENS = 16;

interface Exchange {
  request: Request;
  id?: string;
}

interface AnsweredExchange extends Exchange {
  response: Response;
  options?: { fetch?: typeof globalThis.fetch };
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
  /** The reads this tracker put tokens on, so that a refusal of them is known for its own. */
  private readonly tokened = new WeakSet<Request>();

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
    if (token !== undefined && !request.headers.has(CONSISTENCY_HEADER)) {
      request.headers.set(CONSISTENCY_HEADER, token);
      this.tokened.add(request);
    }
    return request;
  };

  readonly onResponse = async ({ request, response, id, options }: AnsweredExchange): Promise<Response> => {
    if (this.tokened.has(request) && (await refusesTokens(response))) return this.withoutTokens(request, options?.fetch ?? globalThis.fetch);
    const covered = id === undefined ? undefined : this.before.get(id);
    if (id !== undefined) this.before.delete(id);
    const token = response.headers.get(CONSISTENCY_HEADER);
    if (token === null || !/^[A-Za-z0-9_-]+$/.test(token)) return response;
    const kept = this.held.filter((t) => t !== token && !covered?.includes(t));
    this.held = [...kept, token].slice(-MAX_TOKENS);
    return response;
  };

  /**
   * A read refused for the tokens it carried: an instance of an earlier release (during a rolling
   * upgrade) that cannot read this release's tokens. Sent again without them, it is served as any
   * read without a token is; the tokens stay for the next read, which may reach a newer instance.
   */
  private withoutTokens(request: Request, fetch: typeof globalThis.fetch): Promise<Response> {
    const again = new Request(request);
    again.headers.delete(CONSISTENCY_HEADER);
    return fetch(again);
  }

  readonly onError = ({ id }: { id?: string }): undefined => {
    if (id !== undefined) this.before.delete(id);
    return undefined;
  };
}

/** Whether an answer is the 400 of a consistency header the service could not read. */
async function refusesTokens(response: Response): Promise<boolean> {
  if (response.status !== 400) return false;
  try {
    const body = (await response.clone().json()) as { code?: unknown; message?: unknown };
    return body.code === 'bad_request' && typeof body.message === 'string' && body.message.startsWith(CONSISTENCY_HEADER);
  } catch {
    return false;
  }
}
