/** The header a write answers with and a later read sends back (docs/read-replicas.md). */
export const CONSISTENCY_HEADER = 'x-svc-consistency';

const READS = new Set(['GET', 'HEAD']);

/** A token's position, to keep the furthest when answers arrive out of order; null when it is not one. */
function positionOf(token: string): bigint | null {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(token);
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

/**
 * Read-your-writes across a service that reads from a replica: remembers the furthest
 * `x-svc-consistency` its writes were answered with, and sends it on every later read, so the
 * replica serves a read only once it has those writes (else the primary does).
 */
export class ConsistencyTracker {
  private last: string | undefined;
  private furthest: bigint | null = null;

  /** The token sent on reads, once a write has answered one. */
  get token(): string | undefined {
    return this.last;
  }

  // Arrow properties: openapi-fetch calls a middleware's hooks detached from it.
  readonly onRequest = ({ request }: { request: Request }): Request => {
    if (this.last !== undefined && READS.has(request.method) && !request.headers.has(CONSISTENCY_HEADER)) {
      request.headers.set(CONSISTENCY_HEADER, this.last);
    }
    return request;
  };

  readonly onResponse = ({ response }: { response: Response }): Response => {
    const token = response.headers.get(CONSISTENCY_HEADER);
    const position = token === null ? null : positionOf(token);
    if (token !== null && position !== null && (this.furthest === null || position > this.furthest)) {
      this.furthest = position;
      this.last = token;
    }
    return response;
  };
}
