import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { ValidatedBy } from '../../common/validation/validation.pipe';
import type { PermissionCheckResult } from '../permission-resolver';

/** EXTENSIONS X8: a batch holds 1 to 100 checks. */
export const MAX_BATCH_CHECKS = 100;

export interface BatchCheck {
  userId: string;
  groupId: string;
  permission: string;
}

export type BatchCheckResult = PermissionCheckResult | { error: { code: 'not_found'; message: string } };

/**
 * Checked by hand, as the single check's query is: a hundred items through class-validator cost
 * more than their answers, and a refusal names the item by its index (`checks[3].permission`).
 */
function parseBatch(raw: unknown): CheckBatchDto {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw ApiError.badRequest('request body must be a JSON object');
  const list = (raw as Record<string, unknown>).checks;
  if (!Array.isArray(list)) throw ApiError.badRequest('checks must be a list of 1 to 100 checks');
  if (list.length < 1 || list.length > MAX_BATCH_CHECKS) throw ApiError.badRequest(`checks must hold 1 to ${MAX_BATCH_CHECKS} checks, not ${list.length}`);
  const checks = list.map((item: unknown, i): BatchCheck => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw ApiError.badRequest(`checks[${i}] must be an object`);
    const one = (name: keyof BatchCheck): string => {
      const v = (item as Record<string, unknown>)[name];
      const field = `checks[${i}].${name}`;
      if (v === undefined || v === null) throw ApiError.badRequest(`${field} is required`);
      if (typeof v !== 'string' || v.length === 0) throw ApiError.badRequest(`${field} must be a non-empty string`);
      if (v.includes('\u0000')) throw ApiError.badRequest(`${field} must not contain the NUL character (\\u0000)`);
      return v;
    };
    const check = { userId: one('userId'), groupId: one('groupId'), permission: one('permission') };
    if (check.permission.length > 128) throw ApiError.badRequest(`checks[${i}].permission must be 1-128 characters`);
    return check;
  });
  return { checks };
}

export class BatchCheckItemDto {
  @ApiProperty({ description: 'external user id', minLength: 1 }) userId!: string;
  @ApiProperty({ minLength: 1 }) groupId!: string;
  @ApiProperty({ minLength: 1, maxLength: 128 }) permission!: string;
}

@ValidatedBy(parseBatch)
export class CheckBatchDto {
  @ApiProperty({ type: [BatchCheckItemDto], minItems: 1, maxItems: MAX_BATCH_CHECKS })
  checks!: BatchCheck[];
}

export class BatchCheckErrorDto {
  @ApiProperty({ enum: ['not_found'] }) code!: string;
  @ApiProperty() message!: string;
}

/** One answer: the single check's body, or (group missing, deleted or another game's) `error` alone. */
export class BatchCheckResultDto {
  @ApiPropertyOptional() allowed?: boolean;
  @ApiPropertyOptional({ enum: ['none', 'timeout', 'default', 'role', 'override'] }) source?: string;
  @ApiPropertyOptional({ description: 'only when source is role: the highest-priority granting role' }) viaRoleId?: string;
  @ApiPropertyOptional({ type: BatchCheckErrorDto, description: 'in place of the answer when the group is not found' }) error?: BatchCheckErrorDto;
}

export class CheckBatchResponseDto {
  @ApiProperty({ type: [BatchCheckResultDto], description: 'one per check, in the order of the request' })
  results!: BatchCheckResultDto[];
}
