import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Length, MinLength, ValidateIf } from 'class-validator';

export class PermissionCheckQueryDto {
  @ApiProperty({ description: 'external user id' })
  @IsString({ message: 'userId is required' })
  @MinLength(1, { message: 'userId must not be empty' })
  userId!: string;

  @ApiProperty()
  @IsString({ message: 'groupId is required' })
  @MinLength(1, { message: 'groupId must not be empty' })
  groupId!: string;

  @ApiProperty({ minLength: 1, maxLength: 128 })
  @IsString({ message: 'permission is required' })
  @Length(1, 128, { message: 'permission must be 1-128 characters' })
  permission!: string;
}

export class PermissionCheckResultDto {
  @ApiProperty() allowed!: boolean;
  @ApiProperty({ enum: ['none', 'default', 'role', 'override'] }) source!: string;
  @ApiPropertyOptional({ description: 'only when source is role: the highest-priority granting role' }) viaRoleId?: string;
}

export class SetOverrideDto {
  @ApiPropertyOptional({ default: true, description: 'true grants, false denies; wins over roles both ways' })
  @ValidateIf((o: SetOverrideDto) => o.allowed !== undefined)
  @IsBoolean({ message: 'allowed must be a boolean' })
  allowed?: boolean;
}

export class OverrideDto {
  @ApiProperty() memberId!: string;
  @ApiProperty() permission!: string;
  @ApiProperty() allowed!: boolean;
}

export class CatalogEntryDto {
  @ApiProperty() permission!: string;
  @ApiProperty({ format: 'date-time', description: 'when the key was first granted in the game' }) createdAt!: string;
}

export class CatalogDto {
  @ApiProperty({ type: [CatalogEntryDto] }) items!: CatalogEntryDto[];
}
