import { isoNN } from '../common/time';
import type { ListVisibility } from '../game-config/game-config';
import type { FriendsContext } from '../game-config/friends-context';
import type { BlockDto, FriendRequestDto, FriendshipDto, FriendTagDto, VisibilityDto } from './dto/friends.dto';
import type { FriendListRow, FriendTagRow, RelationshipRow } from './friend-rows';
import { effectiveVisibility } from './list-access';

export function toRequestDto(r: RelationshipRow): FriendRequestDto {
  return {
    id: r.id,
    gameId: r.gameId,
    senderSvcUserId: r.userExternalId,
    targetSvcUserId: r.otherExternalId,
    createdAt: isoNN(r.createdAt),
  };
}

/** A friend row seen by its owner; `ownerExternalId` is the owner as the calling game names them. */
export function toFriendshipDto(r: RelationshipRow | FriendListRow, ownerExternalId = r.userExternalId): FriendshipDto {
  const listed = r as Partial<FriendListRow>;
  return {
    id: r.id,
    gameId: r.gameId,
    userId: ownerExternalId,
    friendSvcUserId: listed.friendExternalId ?? r.otherExternalId,
    createdAt: isoNN(r.createdAt),
    respondedAt: isoNN(r.respondedAt!),
    tagIds: listed.tagIds ?? [],
  };
}

export function toBlockDto(r: RelationshipRow): BlockDto {
  return { id: r.id, gameId: r.gameId, userId: r.userExternalId, blockedSvcUserId: r.otherExternalId, createdAt: isoNN(r.createdAt) };
}

export function toTagDto(t: FriendTagRow): FriendTagDto {
  return {
    id: t.id,
    gameId: t.gameId,
    userId: t.ownerExternalId,
    name: t.name,
    color: t.color,
    createdAt: isoNN(t.createdAt),
    updatedAt: isoNN(t.updatedAt),
  };
}

/** A user's friendsListVisibility as the game's config lets it stand (`stored` null: never set). */
export function toVisibilityDto(ctx: FriendsContext, userId: string, stored: ListVisibility | null): VisibilityDto {
  const { allowed, default: def } = ctx.config.friends.visibility;
  return { userId, friendsListVisibility: effectiveVisibility(allowed, def, stored), allowed: [...allowed] };
}
