import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateIf } from 'class-validator';

const COLOR = /^#[0-9a-fA-F]{6}$/;
const COLOR_MESSAGE = 'color must be exactly #rrggbb';
/** Priorities are stored as 32-bit integers. */
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

export class CreateRoleDto {
  @ApiProperty({ minLength: 1, maxLength: 64, description: 'unique within the group' })
  @IsString()
  @Length(1, 64, { message: 'name must be a string of 1-64 characters' })
  name!: string;

  @ApiProperty({ type: 'integer', description: 'higher = more authority; negative allowed' })
  @IsInt({ message: 'priority must be an integer' })
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  priority!: number;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: COLOR.source, example: '#3fa34d' })
  @ValidateIf((o: CreateRoleDto) => o.color !== undefined && o.color !== null)
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean({ message: 'isDefault must be a boolean' })
  isDefault?: boolean;
}

export class UpdateRoleDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 64 })
  @ValidateIf((o: UpdateRoleDto) => o.name !== undefined)
  @IsString()
  @Length(1, 64, { message: 'name must be a string of 1-64 characters' })
  name?: string;

  @ApiPropertyOptional({ type: 'integer' })
  @ValidateIf((o: UpdateRoleDto) => o.priority !== undefined)
  @IsInt({ message: 'priority must be an integer' })
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  priority?: number;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: COLOR.source, example: '#3fa34d', description: 'null clears it' })
  @ValidateIf((o: UpdateRoleDto) => o.color !== undefined && o.color !== null)
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;

  @ApiPropertyOptional()
  @ValidateIf((o: UpdateRoleDto) => o.isDefault !== undefined)
  @IsBoolean({ message: 'isDefault must be a boolean' })
  isDefault?: boolean;
}

export class GrantPermissionDto {
  @ApiProperty({ minLength: 1, maxLength: 128, example: 'chat.mute' })
  @IsString({ message: 'permission must be a string of 1-128 characters' })
  @Length(1, 128, { message: 'permission must be a string of 1-128 characters' })
  permission!: string;
}

export class RoleDto {
  @ApiProperty() id!: string;
  @ApiProperty() groupId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) priority!: number;
  @ApiProperty({ type: String, nullable: true }) color!: string | null;
  @ApiProperty() isDefault!: boolean;
  @ApiProperty({ type: [String], description: 'granted permission keys, sorted' }) permissions!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}
