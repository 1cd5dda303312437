import { isoNN } from '../common/time';
import type { BlockDto, FriendRequestDto, FriendshipDto, FriendTagDto } from './dto/friends.dto';
import type { FriendListRow, FriendTagRow, RelationshipRow } from './friend-rows';

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
