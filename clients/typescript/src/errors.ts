import type { ErrorCode } from './path-types.js';

export type { ErrorCode };

interface Envelope {
  code: ErrorCode;
  message: string;
  requestId?: string;
}

function isEnvelope(body: unknown): body is Envelope {
  if (typeof body !== 'object' || body === null) return false;
  const { code, message } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string';
}

/** Retry-After as seconds: the header holds either a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** An error answer of the service (or of something between it and you), as `paginate` and `followFeed` throw it. */
export class GuildhallError extends Error {
  override readonly name = 'GuildhallError';
  readonly status: number;
  /** The envelope's code; null when the answer was not the service's envelope (a proxy's 502, say). */
  readonly code: ErrorCode | null;
  /** The envelope's request id, else the `x-request-id` header: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again, from the Retry-After header (429 and 503 answers). */
  readonly retryAfter: number | undefined;

  constructor(init: { status: number; code: ErrorCode | null; message: string; requestId?: string; retryAfter?: number }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }

  /** The error of an answer whose body has been read (`error` of an openapi-fetch call, or the text). */
  static fromResponse(response: Response, body: unknown): GuildhallError {
    const envelope = isEnvelope(body) ? body : null;
    return new GuildhallError({
      status: response.status,
      code: envelope?.code ?? null,
      message: envelope?.message ?? `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      requestId: envelope?.requestId ?? response.headers.get('x-request-id') ?? undefined,
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
}
