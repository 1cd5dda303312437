import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { findNulCharacter } from '../../common/validation/nul-characters';
import { ValidatedBy } from '../../common/validation/validation.pipe';
import { checkConfigKeys, FRIENDS_SCOPES, LIST_VISIBILITIES, unknownKeysError, type FriendsScope, type ListVisibility } from '../game-config';

export class FriendTagsConfigDto {
  @ApiProperty({ default: true }) enabled!: boolean;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, default: 20 }) maxPerUser!: number;
}

export class FriendDiscoveryConfigDto {
  @ApiProperty({ default: true, description: 'false = suggestions answer 404' }) enabled!: boolean;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 50, default: 2 }) minMutuals!: number;
}

export class FriendVisibilityConfigDto {
  @ApiProperty({ enum: LIST_VISIBILITIES, isArray: true, default: ['private', 'friends-only'] }) allowed!: ListVisibility[];
  @ApiProperty({ enum: LIST_VISIBILITIES, default: 'private', description: 'must be one of allowed' }) default!: ListVisibility;
}

export class FriendsConfigDto {
  @ApiProperty({ default: true, description: 'hard kill switch: false = every friends route answers 404' }) enabled!: boolean;
  @ApiProperty({ enum: FRIENDS_SCOPES, default: 'per-game' }) scope!: FriendsScope;
  @ApiProperty({ default: true, description: 'false = a send is accepted at once' }) requestsRequired!: boolean;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100000, default: 1000 }) maxFriends!: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 10000, default: 100, description: 'outbound pending requests' })
  maxPendingRequests!: number;
  @ApiProperty({ type: FriendTagsConfigDto }) tags!: FriendTagsConfigDto;
  @ApiProperty({ type: FriendDiscoveryConfigDto }) discovery!: FriendDiscoveryConfigDto;
  @ApiProperty({ type: FriendVisibilityConfigDto }) visibility!: FriendVisibilityConfigDto;
}

export class BlocksConfigDto {
  @ApiProperty({ default: true, description: 'false = the block routes answer 404 (existing blocks stay in force)' })
  enabled!: boolean;
}

export class GroupsConfigDto {
  @ApiProperty({
    type: [String],
    maxItems: 20,
    default: [],
    example: ['clan'],
    description:
      'kinds of group a player may be an active member of only one of at a time: a second admission answers 409 already_in_group_of_kind; changing the list removes nobody',
  })
  exclusiveKinds!: string[];
}

export class ModerationNamesConfigDto {
  @ApiProperty({
    type: [String],
    maxItems: 1000,
    default: [],
    example: ['cheatz'],
    description:
      'words no group name or tag may contain (1-64 characters each, distinct), found through case, accents, look-alikes, separators and repeated letters: 400 name_not_allowed, operators included',
  })
  blocked!: string[];

  @ApiProperty({
    type: [String],
    maxItems: 1000,
    default: [],
    example: ['admin', 'staff'],
    description: 'words only operators may put in a group name or tag (PATCH /v1/admin/games/{gameId}/groups/{groupId}); matched as blocked words are',
  })
  reserved!: string[];
}

export class ModerationConfigDto {
  @ApiProperty({ type: ModerationNamesConfigDto }) names!: ModerationNamesConfigDto;

  @ApiProperty({
    type: [String],
    maxItems: 100,
    default: [],
    example: ['chat.send'],
    description: 'permission keys (1-128 characters each, distinct) a timed-out member is denied',
  })
  timeoutDeniedPermissions!: string[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 1000,
    default: null,
    description: 'while this many distinct reporters hold open reports on a group, group search leaves it out; null = never',
  })
  hideGroupAtReporters!: number | null;
}

export class ResolvedConfigDto {
  @ApiProperty({ type: FriendsConfigDto }) friends!: FriendsConfigDto;
  @ApiProperty({ type: BlocksConfigDto }) blocks!: BlocksConfigDto;
  @ApiProperty({ type: GroupsConfigDto }) groups!: GroupsConfigDto;
  @ApiProperty({ type: ModerationConfigDto }) moderation!: ModerationConfigDto;
}

/** SPEC §4 GET/PATCH /v1/admin/games/:gameId/config. */
export class GameConfigDto {
  @ApiProperty() gameId!: string;
  @ApiProperty({ type: ResolvedConfigDto, description: 'fully resolved: stored values over the defaults' }) config!: ResolvedConfigDto;
  @ApiProperty({ type: String, nullable: true }) networkId!: string | null;
}

const BODY_KEYS = ['config', 'networkId'];

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checked by hand on the body as parsed: class-transformer would copy `config` dropping the keys
 * that name members of Object.prototype (`constructor`, `toString`), which must be refused instead.
 */
function parsePatchGameConfig(raw: unknown): PatchGameConfigDto {
  const body = raw === undefined || raw === null || raw === '' ? {} : raw;
  if (!isPlainObject(body)) throw ApiError.badRequest('request body must be a JSON object');
  const nul = findNulCharacter(body, '');
  if (nul !== null) throw ApiError.badRequest(`${nul || 'body'} must not contain the NUL character (\\u0000)`);
  const unknown = Object.keys(body).filter((k) => !BODY_KEYS.includes(k));
  if (unknown.length) throw unknownKeysError('body', unknown, BODY_KEYS);
  const { config, networkId } = body;
  if (config !== undefined && !isPlainObject(config)) throw ApiError.badRequest('config must be a JSON object');
  if (config !== undefined) checkConfigKeys(config);
  if (networkId !== undefined && networkId !== null && (typeof networkId !== 'string' || networkId.length < 1 || networkId.length > 255)) {
    throw ApiError.badRequest('networkId must be a string of 1-255 characters or null');
  }
  return { config, networkId };
}

@ValidatedBy(parsePatchGameConfig)
export class PatchGameConfigDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { friends: { maxFriends: 500, tags: { maxPerUser: 10 } }, blocks: null },
    description: 'partial config, deep-merged branch by branch; null for a branch or key resets it to its default',
  })
  config?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 255, description: 'null leaves the network' })
  networkId?: string | null;
}
