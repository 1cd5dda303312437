import { ApiProperty } from '@nestjs/swagger';

export class ErasureCountsDto {
  @ApiProperty({ description: 'member rows in any status but banned (group bans count under bans)', example: 3 })
  memberships!: number;

  @ApiProperty({ description: 'friendships (pairs)', example: 12 })
  friendships!: number;

  @ApiProperty({ description: 'pending friend requests, sent or received', example: 1 })
  friendRequests!: number;

  @ApiProperty({ description: 'blocks, by or of the user', example: 0 })
  blocks!: number;

  @ApiProperty({ description: "the user's friend tags", example: 2 })
  tags!: number;

  @ApiProperty({ description: 'invitations targeted at the user', example: 1 })
  invitations!: number;

  @ApiProperty({ example: 0 })
  joinRequests!: number;

  @ApiProperty({ description: 'the game ban and the group bans', example: 1 })
  bans!: number;
}

export class UserErasureDto {
  @ApiProperty({ description: 'the erased external id, as sent', example: 'player-42' })
  userId!: string;

  @ApiProperty({
    description: "what the game's audit entries, retained events and pending webhook deliveries name instead of the user",
    example: 'erased_5f0c6c1e9b2a4d7e8f1a2b3c4d5e6f70',
  })
  pseudonym!: string;

  @ApiProperty({ format: 'date-time', description: "the erasure's time, as in the ledger and the user.erased event" })
  erasedAt!: string;

  @ApiProperty({ type: ErasureCountsDto })
  removed!: ErasureCountsDto;
}
