import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS } from './error-codes';

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
  429: 'Rate limit exceeded; see the Retry-After header',
  500: 'Internal error; the envelope carries requestId',
  503: 'The database cannot be reached; retry after the Retry-After header (seconds); the envelope carries requestId',
};

/**
 * Documents the error statuses a route answers with, each carrying the envelope. 429, 500 and 503
 * are always added: any route may be rate limited, fail, or find the database down.
 */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...[...new Set([...statuses, 429, 500, 503])].map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorEnvelopeDto }),
    ),
  );
}
