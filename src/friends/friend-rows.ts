export type RelationshipType = 'request' | 'friend' | 'blocked';

/** A user_relationships row as the repository reads it. */
export interface RelationshipRow {
  id: string;
  gameId: string;
  userId: string;
  otherId: string;
  userExternalId: string;
  otherExternalId: string;
  type: RelationshipType;
  createdAt: Date;
  respondedAt: Date | null;
}

export const RELATIONSHIP_COLUMNS = `r.id, r.game_id AS "gameId", r.user_id AS "userId", r.other_id AS "otherId",
  r.user_external_id AS "userExternalId", r.other_external_id AS "otherExternalId", r.type,
  r.created_at AS "createdAt", r.responded_at AS "respondedAt"`;

/** A row of a friends list: the friend's external id as the calling game names them, and the tags. */
export interface FriendListRow extends RelationshipRow {
  friendExternalId: string;
  tagIds: string[];
}

export interface FriendTagRow {
  id: string;
  gameId: string;
  userId: string;
  ownerExternalId: string;
  name: string;
  color: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const TAG_COLUMNS = `t.id, t.game_id AS "gameId", t.user_id AS "userId", t.name, t.color,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;

export interface SuggestionRow {
  svcUserId: string;
  mutualCount: number;
  sampleMutualSvcUserIds: string[];
}
