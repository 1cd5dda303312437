import { ApiProperty } from '@nestjs/swagger';
import { IsString, MinLength } from 'class-validator';

/** DECISIONS §6: PUT /v1/admin/games/:gameId/users/:externalUserId. */
export class LinkIdentityDto {
  @ApiProperty({ description: 'the internal user id to anchor the external id to (the svcUserId of the admin members list)' })
  @IsString({ message: 'svcUserId must be a non-empty string' })
  @MinLength(1, { message: 'svcUserId must be a non-empty string' })
  svcUserId!: string;
}

export class IdentityLinkDto {
  @ApiProperty() gameId!: string;
  @ApiProperty() externalUserId!: string;
  @ApiProperty() svcUserId!: string;
}
