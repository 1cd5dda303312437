import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from './error-codes';

/** The error envelope of SPEC §7, as documented in the API document. */
export class ErrorEnvelopeDto {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'bad_request' })
  code!: string;

  @ApiProperty({ example: 400 })
  status!: number;

  @ApiProperty({ example: 'name must be a string of 1-120 characters' })
  message!: string;

  @ApiPropertyOptional({ description: 'present on 500 internal and 503 service_unavailable; equals the x-request-id header' })
  requestId?: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failed, malformed JSON, bad limit or cursor',
  401: 'Missing or invalid credential',
  403: 'Forbidden',
  404: 'Not found (also for resources of another game or soft-deleted)',
  409: 'Conflict',
  410: 'Gone',
  413: 'The body is larger than the service accepts',
  415: 'The body is not JSON',
  429: 'Rate limit exceeded; see the Retry-After header',
  500: 'Internal error; the envelope carries requestId',
  503: 'The database cannot be reached; retry after the Retry-After header (seconds); the envelope carries requestId',
};

/**
 * The statuses whose code follows from the status alone. 401's code depends on the route's
 * credential: both are listed here and the document builder keeps the one of its scheme.
 */
const CODES_OF_STATUS = {
  400: ['bad_request'],
  401: ['invalid_api_key', 'invalid_admin_token'],
  404: ['not_found'],
} as const satisfies Record<number, readonly ErrorCode[]>;

/** Answered by every route: any may be rate limited, fail, or find the database down. */
const ALWAYS: readonly ErrorCode[] = ['rate_limit_exceeded', 'internal', 'service_unavailable'];

/** The error answer of one status: the envelope, its `code` narrowed to what this route answers. */
export function errorResponseSchema(codes: readonly string[]) {
  return {
    allOf: [{ $ref: getSchemaPath(ErrorEnvelopeDto) }, { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } }],
  };
}

export const errorDescription = (status: number): string => DESCRIPTIONS[status] ?? 'Error';

/**
 * Documents the errors a route answers with, each with the envelope and its possible codes: a
 * code by name, or 400/401/404 for the codes that status always means. 429, 500 and 503 are
 * always added; 413 and 415 are added to routes with a body by the document builder.
 */
export function ApiErrors(...entries: Array<ErrorCode | keyof typeof CODES_OF_STATUS>): MethodDecorator & ClassDecorator {
  const codes = new Set<ErrorCode>(ALWAYS);
  for (const entry of entries) for (const code of typeof entry === 'number' ? CODES_OF_STATUS[entry] : [entry]) codes.add(code);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ...[...byStatus].map(([status, list]) => ApiResponse({ status, description: errorDescription(status), schema: errorResponseSchema(list) })),
  );
}
