import { HttpException } from '@nestjs/common';
import { ApiError } from './api-error';
import { databaseUnavailableCause } from './db-unavailable';
import { codeForStatus, ERROR_STATUS, isErrorCode, type ErrorCode } from './error-codes';

/** The JSON body of every non-2xx response (SPEC §7). */
export interface ErrorEnvelope {
  code: ErrorCode;
  status: number;
  message: string;
  requestId?: string;
}

export interface ResolvedError {
  envelope: ErrorEnvelope;
  headers: Record<string, string>;
  /** True when the error is not the client's doing and must be logged with its detail. */
  unexpected: boolean;
  /** Set when the database cannot be reached: why, for a one-line log without stack. */
  unavailable?: string;
}

/**
 * DECISIONS §30: the wait suggested to clients while the database cannot be reached. A restart or
 * failover takes seconds; a shorter wait would mostly buy another 503.
 */
export const DB_UNAVAILABLE_RETRY_AFTER_S = 2;

/** The longest path segment the router takes (Fastify's maxParamLength): far above any id a route accepts, which refuses longer ones by name. */
export const MAX_PATH_SEGMENT = 65_536;

const INTERNAL_MESSAGE = 'An internal error occurred; quote the requestId when reporting it.';

/** Messages Fastify gives its own client errors, rewritten for clients (no framework jargon). */
function frameworkMessage(code: string | undefined, fallback: string): string {
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'request body is not valid JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'content-type must be application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'content-length does not match the body';
    case 'FST_ERR_BAD_URL':
      return 'the path is not valid: each percent-encoded byte must make UTF-8 text';
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return `the path has a segment longer than ${MAX_PATH_SEGMENT} characters`;
    default:
      return fallback;
  }
}

function isFrameworkError(cause: unknown): boolean {
  const c = cause as { code?: unknown; statusCode?: unknown } | null | undefined;
  return typeof c?.code === 'string' && c.code.startsWith('FST_') && typeof c.statusCode === 'number';
}

function fromHttpException(err: HttpException): { code: ErrorCode; status: number; message: string } {
  const status = err.getStatus();
  const res = err.getResponse();
  const body = typeof res === 'object' && res !== null ? (res as Record<string, unknown>) : {};
  const code = isErrorCode(body.code) ? body.code : codeForStatus(status);
  const raw = body.message ?? (typeof res === 'string' ? res : err.message);
  const message = Array.isArray(raw) ? raw.join('; ') : String(raw);
  return { code, status: ERROR_STATUS[code] === status ? status : ERROR_STATUS[code], message };
}

/**
 * Maps anything thrown while serving a request to the envelope. An unreachable database becomes
 * 503 `service_unavailable` with Retry-After; other unknown errors become 500 `internal`. Both
 * carry the request id and a generic message: no stack, no SQL, no host.
 */
export function resolveError(err: unknown, requestId: string | undefined): ResolvedError {
  // Nest hands a Fastify client error (415, 413, a content-length mismatch) to the filter wrapped
  // in an HttpException with Fastify's message; its code, which says what to tell the client, is
  // on the cause.
  if (err instanceof HttpException && isFrameworkError(err.cause)) return resolveError(err.cause, requestId);
  if (err instanceof ApiError) {
    // A 503 of our own (shutting down) carries the request id like every 5xx.
    const id = err.status >= 500 && requestId ? { requestId } : {};
    return {
      envelope: { code: err.code, status: err.status, message: err.message, ...id },
      headers: { ...err.headers },
      unexpected: false,
    };
  }
  if (err instanceof HttpException) {
    const { code, status, message } = fromHttpException(err);
    if (status < 500) return { envelope: { code, status, message }, headers: {}, unexpected: false };
  }
  // Fastify's own client errors (body parsing, content type) carry a 4xx statusCode.
  const e = err as { statusCode?: unknown; code?: unknown; message?: unknown } | null;
  if (e && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = codeForStatus(e.statusCode);
    const message = frameworkMessage(
      typeof e.code === 'string' ? e.code : undefined,
      typeof e.message === 'string' ? e.message : 'bad request',
    );
    return { envelope: { code, status: ERROR_STATUS[code], message }, headers: {}, unexpected: false };
  }
  const unavailable = databaseUnavailableCause(err);
  if (unavailable) {
    const envelope: ErrorEnvelope = {
      code: 'service_unavailable',
      status: 503,
      message: `the service cannot reach its database; retry in ${DB_UNAVAILABLE_RETRY_AFTER_S} s`,
    };
    if (requestId) envelope.requestId = requestId;
    return { envelope, headers: { 'retry-after': String(DB_UNAVAILABLE_RETRY_AFTER_S) }, unexpected: false, unavailable };
  }
  const envelope: ErrorEnvelope = { code: 'internal', status: 500, message: INTERNAL_MESSAGE };
  if (requestId) envelope.requestId = requestId;
  return { envelope, headers: {}, unexpected: true };
}
