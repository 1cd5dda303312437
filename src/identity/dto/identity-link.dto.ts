import { ApiProperty } from '@nestjs/swagger';
import { IsString, MinLength } from 'class-validator';
import { INTERNAL_USER_ID_EXAMPLE } from '../../openapi/examples';

/** DECISIONS §6: PUT /v1/admin/games/:gameId/users/:externalUserId. */
export class LinkIdentityDto {
  @ApiProperty({
    example: INTERNAL_USER_ID_EXAMPLE,
    description: 'the internal user id (not an external id) to anchor the external id to: the svcUserId of the admin members list',
  })
  @IsString({ message: 'svcUserId must be a non-empty string' })
  @MinLength(1, { message: 'svcUserId must be a non-empty string' })
  svcUserId!: string;
}

export class IdentityLinkDto {
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'the external id of the path, as the game uses it' }) externalUserId!: string;
  @ApiProperty({ example: INTERNAL_USER_ID_EXAMPLE, description: 'the internal user id it is now anchored to' }) svcUserId!: string;
}
