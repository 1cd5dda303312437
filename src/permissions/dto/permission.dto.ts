import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';
import { ApiError } from '../../common/errors/api-error';
import { ValidatedBy } from '../../common/validation/validation.pipe';
import { GrantExpiryDto } from './grant-expiry.dto';

/** The permission check is the hottest route: its three parameters are checked by hand. */
function parseCheckQuery(raw: unknown): PermissionCheckQueryDto {
  const q = (raw ?? {}) as Record<string, unknown>;
  const one = (name: 'userId' | 'groupId' | 'permission'): string => {
    const v = q[name];
    if (v === undefined) throw ApiError.badRequest(`${name} is required`);
    if (typeof v !== 'string') throw ApiError.badRequest(`${name} must be given once`);
    if (v.length === 0) throw ApiError.badRequest(`${name} must not be empty`);
    if (v.includes('\u0000')) throw ApiError.badRequest(`${name} must not contain the NUL character (\\u0000)`);
    return v;
  };
  const dto = { userId: one('userId'), groupId: one('groupId'), permission: one('permission') };
  if (dto.permission.length > 128) throw ApiError.badRequest('permission must be 1-128 characters');
  return dto;
}

@ValidatedBy(parseCheckQuery)
export class PermissionCheckQueryDto {
  @ApiProperty({ description: 'external user id', minLength: 1 })
  userId!: string;

  @ApiProperty({ minLength: 1 })
  groupId!: string;

  @ApiProperty({ minLength: 1, maxLength: 128 })
  permission!: string;
}

export class PermissionCheckResultDto {
  @ApiProperty() allowed!: boolean;
  @ApiProperty({ enum: ['none', 'timeout', 'default', 'role', 'override'], description: 'timeout: the member is timed out and the game denies the key to timed-out members' }) source!: string;
  @ApiPropertyOptional({ description: 'only when source is role: the highest-priority granting role' }) viaRoleId?: string;
}

export class SetOverrideDto extends GrantExpiryDto {
  @ApiPropertyOptional({ default: true, description: 'true grants, false denies; wins over roles both ways' })
  @ValidateIf((o: SetOverrideDto) => o.allowed !== undefined)
  @IsBoolean({ message: 'allowed must be a boolean' })
  allowed?: boolean;
}

export class OverrideDto {
  @ApiProperty() memberId!: string;
  @ApiProperty() permission!: string;
  @ApiProperty() allowed!: boolean;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when the override ends; null: permanent' })
  expiresAt!: string | null;
}

export class CatalogEntryDto {
  @ApiProperty() permission!: string;
  @ApiProperty({ format: 'date-time', description: 'when the key was first granted in the game' }) createdAt!: string;
}

export class CatalogDto {
  @ApiProperty({ type: [CatalogEntryDto] }) items!: CatalogEntryDto[];
}
