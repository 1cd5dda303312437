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
 * A valid field costs a type test and a scan for NUL; the field's name is written only to refuse it.
 */
function parseBatch(raw: unknown): CheckBatchDto {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw ApiError.badRequest('request body must be a JSON object');
  const list = (raw as Record<string, unknown>).checks;
  if (!Array.isArray(list)) throw ApiError.badRequest('checks must be a list of 1 to 100 checks');
  if (list.length < 1 || list.length > MAX_BATCH_CHECKS) throw ApiError.badRequest(`checks must hold 1 to ${MAX_BATCH_CHECKS} checks, not ${list.length}`);
  const checks: BatchCheck[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw ApiError.badRequest(`checks[${i}] must be an object`);
    const { userId, groupId, permission } = item as Record<string, unknown>;
    const check = { userId: text(userId, i, 'userId'), groupId: text(groupId, i, 'groupId'), permission: text(permission, i, 'permission') };
    if (check.permission.length > 128) throw ApiError.badRequest(`checks[${i}].permission must be 1-128 characters`);
    checks[i] = check;
  }
  return { checks };
}

/** Field `name` of item `i`, a non-empty string without NUL, or the 400 that names it. */
function text(v: unknown, i: number, name: keyof BatchCheck): string {
  if (typeof v === 'string' && v.length > 0 && !v.includes('\u0000')) return v;
  const field = `checks[${i}].${name}`;
  if (v === undefined || v === null) throw ApiError.badRequest(`${field} is required`);
  if (typeof v !== 'string' || v.length === 0) throw ApiError.badRequest(`${field} must be a non-empty string`);
  throw ApiError.badRequest(`${field} must not contain the NUL character (\\u0000)`);
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
