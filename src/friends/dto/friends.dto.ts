import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length, Matches, MinLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page';
import { LIST_VISIBILITIES, type ListVisibility } from '../../game-config/game-config';
import { RELATIONSHIP_STATES, type RelationshipState } from '../relationship-state';

const COLOR = /^#[0-9a-fA-F]{6}$/;
const COLOR_MESSAGE = 'color must be exactly #rrggbb';

export class TargetUserDto {
  @ApiProperty({ description: 'external user id of the other party' })
  @IsString({ message: 'targetSvcUserId must be a non-empty string' })
  @MinLength(1, { message: 'targetSvcUserId must be a non-empty string' })
  targetSvcUserId!: string;
}

/** A pending friend request (one directed row). */
export class FriendRequestDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'external id of the sender' }) senderSvcUserId!: string;
  @ApiProperty({ description: 'external id of the recipient' }) targetSvcUserId!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

/** One side of a friendship: the owner's row, naming the friend. */
export class FriendshipDto {
  @ApiProperty({ description: 'the owner-side friend row; for the sender it is the accepted request, same id' }) id!: string;
  @ApiProperty({ description: 'the game the friendship was made in (another network game under network scope)' }) gameId!: string;
  @ApiProperty({ description: 'external id of the owner' }) userId!: string;
  @ApiProperty({ description: 'external id of the friend' }) friendSvcUserId!: string;
  @ApiProperty({ format: 'date-time', description: 'when the request was sent (the sender side) or accepted' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', description: 'when the friendship began' }) respondedAt!: string;
  @ApiProperty({ type: [String], description: "the owner's tags on this friend; empty unless the owner or an admin reads" })
  tagIds!: string[];
}

export class SendFriendRequestResultDto {
  @ApiProperty({ enum: ['pending', 'auto-accepted'] }) status!: 'pending' | 'auto-accepted';
  @ApiPropertyOptional({ type: FriendRequestDto, description: 'when pending' }) request?: FriendRequestDto;
  @ApiPropertyOptional({ type: FriendshipDto, description: "when auto-accepted: the sender's side" }) friendship?: FriendshipDto;
}

export class AcceptFriendRequestResultDto {
  @ApiProperty({ enum: ['accepted'] }) status!: 'accepted';
  @ApiProperty({ type: FriendshipDto, description: "the sender's side: the request row, updated in place" }) friendship!: FriendshipDto;
}

export class FriendRequestsDto {
  @ApiProperty({ type: [FriendRequestDto], description: 'requests to the user, newest first (empty for direction=out)' })
  inbound!: FriendRequestDto[];
  @ApiProperty({ type: [FriendRequestDto], description: 'requests from the user, newest first (empty for direction=in)' })
  outbound!: FriendRequestDto[];
}

export class FriendRequestsQueryDto {
  @ApiPropertyOptional({ enum: ['in', 'out', 'both'], default: 'both' })
  @IsOptional()
  @IsIn(['in', 'out', 'both'], { message: 'direction must be one of in, out, both' })
  direction?: 'in' | 'out' | 'both';
}

export class FriendsListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: "only friends carrying this tag of the owner (calling game only)" })
  @IsOptional()
  @IsString()
  @MinLength(1, { message: 'tagId must be a non-empty string' })
  tagId?: string;

  @ApiPropertyOptional({ description: "external id of the reader: the owner's visibility applies; omit for an admin read" })
  @IsOptional()
  @IsString()
  @MinLength(1, { message: 'viewer must be a non-empty string' })
  viewer?: string;
}

export class RelationshipDto {
  @ApiProperty({ enum: RELATIONSHIP_STATES }) state!: RelationshipState;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) since!: string | null;
}

export class BlockDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'external id of the blocker' }) userId!: string;
  @ApiProperty({ description: 'external id of the blocked user' }) blockedSvcUserId!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class FriendTagDto {
  @ApiProperty() id!: string;
  @ApiProperty() gameId!: string;
  @ApiProperty({ description: 'external id of the owner' }) userId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) color!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class FriendTagListDto {
  @ApiProperty({ type: [FriendTagDto], description: 'sorted by name (byte order), then id' }) items!: FriendTagDto[];
}

export class CreateFriendTagDto {
  @ApiProperty({ minLength: 1, maxLength: 64 })
  @IsString({ message: 'name must be a string of 1-64 characters' })
  @Length(1, 64, { message: 'name must be a string of 1-64 characters' })
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: COLOR.source, example: '#3fa34d' })
  @ValidateIf((o: CreateFriendTagDto) => o.color !== undefined && o.color !== null)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}

export class UpdateFriendTagDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 64 })
  @ValidateIf((o: UpdateFriendTagDto) => o.name !== undefined)
  @IsString({ message: 'name must be a string of 1-64 characters' })
  @Length(1, 64, { message: 'name must be a string of 1-64 characters' })
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: COLOR.source, example: '#3fa34d', description: 'null clears it' })
  @ValidateIf((o: UpdateFriendTagDto) => o.color !== undefined && o.color !== null)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}

export class SetFriendTagsDto {
  @ApiProperty({ type: [String], description: "the complete set of the owner's tag ids; [] clears" })
  @IsArray({ message: 'tagIds must be an array of tag ids' })
  @ArrayMaxSize(1000, { message: 'tagIds must hold at most 1000 ids' })
  @IsString({ each: true, message: 'tagIds must be an array of tag ids' })
  tagIds!: string[];
}

export class SuggestionDto {
  @ApiProperty({ description: 'external id of the suggested user (as in every friends field, svcUserId here names an external id, not an internal one)' })
  svcUserId!: string;
  @ApiProperty({ type: 'integer' }) mutualCount!: number;
  @ApiProperty({ type: [String], description: 'external ids of up to 5 mutual friends' }) sampleMutualSvcUserIds!: string[];
}

export class SuggestionsDto {
  @ApiProperty({ type: [SuggestionDto], description: 'most mutual friends first' }) items!: SuggestionDto[];
}

export class SuggestionsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 50, default: 20 })
  @IsOptional()
  @IsString()
  limit?: string;
}

export class VisibilityDto {
  @ApiProperty({ description: 'external user id' }) userId!: string;
  @ApiProperty({ enum: LIST_VISIBILITIES, description: "the user's choice, or the configured default" })
  friendsListVisibility!: ListVisibility;
  @ApiProperty({ enum: LIST_VISIBILITIES, isArray: true, description: "the game's allowed values" }) allowed!: ListVisibility[];
}

export class UpdateVisibilityDto {
  @ApiProperty({ enum: LIST_VISIBILITIES, description: "must be one of the game's allowed values" })
  @IsIn(LIST_VISIBILITIES, { message: `friendsListVisibility must be one of ${LIST_VISIBILITIES.join(', ')}` })
  friendsListVisibility!: ListVisibility;
}
