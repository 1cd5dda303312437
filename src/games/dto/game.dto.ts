import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

export class CreateGameDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Starfall Online', description: 'not unique' })
  @IsString()
  @Length(1, 200, { message: 'name must be a string of 1-200 characters' })
  name!: string;
}

/** WireAdminGame (SPEC §2 Game, API key): the operator view of a game with live counts. */
export class AdminGameDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ description: 'groups that are not soft-deleted' }) groupCount!: number;
  @ApiProperty({ description: 'active members of groups that are not soft-deleted' }) activeMemberCount!: number;
  @ApiProperty({ description: 'keys that are not revoked' }) apiKeyCount!: number;
}

export class AdminGameListDto {
  @ApiProperty({ type: [AdminGameDto] }) items!: AdminGameDto[];
}

export class AdminGamesQueryDto {
  @ApiProperty({ required: false, type: 'integer', minimum: 1, maximum: 200, default: 100 })
  @IsOptional()
  @IsString()
  limit?: string;
}
