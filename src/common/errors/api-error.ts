import { ERROR_STATUS, type ErrorCode } from './error-codes';

/**
 * The one error type services throw: a code of SPEC §7 and a client-readable message.
 * The global filter turns it into the envelope `{ code, status, message }`.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  static badRequest(message: string): ApiError {
    return new ApiError('bad_request', message);
  }

  static notFound(what = 'resource'): ApiError {
    return new ApiError('not_found', `${what} not found`);
  }
}
