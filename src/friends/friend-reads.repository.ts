import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Keyset } from '../common/pagination/keyset';
import { packedSql, unpack } from '../db/packed-row';
import { preparedRows } from '../db/sql';
import type { ListVisibility } from '../game-config/game-config';
import { internalIdSql } from '../identity/identity.repository';
import { friendJsonParts } from './friend-json';
import type { RelationshipType } from './friend-rows';
import type { RelationshipFacts } from './relationship-state';

export interface FriendsListQuery {
  callingGameId: string;
  /** Games whose friendships are read (the network, or the calling game alone). */
  readGameIds: string[];
  ownerExternalId: string;
  /** A viewer other than the owner: the facts of rule 2 about them come back. */
  viewerExternalId?: string;
  /** Restricts to rows carrying this tag in the calling game; null stands for an id that is no tag. */
  tagId?: string | null;
  /** Attach the owner's tag ids (owner or admin reading; never another viewer). */
  withTags: boolean;
  after?: Keyset;
  limit: number;
}

export interface FriendsListResult {
  /** The owner's stored friendsListVisibility in the calling game (viewer reads only). */
  storedVisibility: ListVisibility | null;
  /** A block between owner and viewer, either way, in the calling game (viewer reads only). */
  blocked: boolean;
  /** The viewer is a friend of the owner in the read games (viewer reads only). */
  isFriend: boolean;
  /** `tagId` is a tag of the owner in the calling game (tag reads only). */
  tagOk: boolean;
  /** The page's rows, each its fields as friendJson writes them (friendJsonParts). */
  rows: string[][];
}

interface ListRow {
  packed: string | null;
  storedVisibility?: ListVisibility | null;
  blocked?: boolean;
  isFriend?: boolean;
  tagOk?: boolean;
}

interface PairRow {
  mineType: RelationshipType | null;
  mineCreatedAt: Date | null;
  mineRespondedAt: Date | null;
  theirsType: RelationshipType | null;
  theirsCreatedAt: Date | null;
  theirsRespondedAt: Date | null;
  networkFriendsSince?: Date | null;
}

/**
 * The hot friends reads, each one named prepared statement outside any transaction that resolves
 * the external ids itself: nothing else reaches the database on these routes (the config is cached).
 * Statement names carry the shape of the SQL, so one name always stands for one text.
 */
@Injectable()
export class FriendReadsRepository {
  /**
   * One page of a friends list in (respondedAt, id) descending order, read from
   * user_relationships_friends in index order, beside the facts the route's checks need. Across
   * several games (network scope) a friend met in two games is listed once, with the earliest
   * friendship, and a friend the owner blocked, or who blocked them, in the calling game is left
   * out. The friend is named by their external id in the calling game when they have one, else by
   * the one in the game the friendship was made in. Always one row at least (the facts), whose
   * page columns are null when the page is empty.
   */
  async listPage(ds: DataSource, p: FriendsListQuery): Promise<FriendsListResult> {
    const params: unknown[] = [];
    const $ = (value: unknown) => `$${params.push(value)}`;
    const calling = `${$(p.callingGameId)}::uuid`;
    const network = p.readGameIds.length > 1;
    // One game is an equality, so the index yields rows in page order with no sort.
    const games = network ? `${$(p.readGameIds)}::uuid[]` : '';
    const inGames = (alias: string) => (network ? `${alias}.game_id = ANY(${games})` : `${alias}.game_id = ${calling}`);
    const ids = [`${internalIdSql(calling, $(p.ownerExternalId))} AS owner_id`];
    const facts: string[] = [];
    if (p.viewerExternalId !== undefined) {
      ids.push(`${internalIdSql(calling, $(p.viewerExternalId))} AS viewer_id`);
      facts.push(
        `(SELECT s.friends_list_visibility FROM friend_settings s WHERE s.user_id = o.owner_id AND s.game_id = ${calling}) AS "storedVisibility"`,
        `EXISTS (SELECT 1 FROM user_relationships b WHERE b.game_id = ${calling} AND b.type = 'blocked'
           AND ((b.user_id = o.owner_id AND b.other_id = o.viewer_id) OR (b.user_id = o.viewer_id AND b.other_id = o.owner_id))) AS blocked`,
        `EXISTS (SELECT 1 FROM user_relationships f
           WHERE f.user_id = o.owner_id AND f.other_id = o.viewer_id AND ${inGames('f')} AND f.type = 'friend') AS "isFriend"`,
      );
    }
    const where = [`r.user_id = o.owner_id`, inGames('r'), `r.type = 'friend'`];
    if (network) {
      where.push(`NOT EXISTS (SELECT 1 FROM user_relationships d
        WHERE d.user_id = r.user_id AND d.other_id = r.other_id AND ${inGames('d')} AND d.type = 'friend'
          AND (d.responded_at, d.id) < (r.responded_at, r.id))`);
      where.push(`NOT EXISTS (SELECT 1 FROM user_relationships b
        WHERE b.game_id = ${calling} AND b.type = 'blocked'
          AND ((b.user_id = r.user_id AND b.other_id = r.other_id) OR (b.user_id = r.other_id AND b.other_id = r.user_id)))`);
    }
    if (p.tagId !== undefined) {
      const tag = `${$(p.tagId)}::uuid`;
      facts.push(`EXISTS (SELECT 1 FROM friend_tags t WHERE t.id = ${tag} AND t.game_id = ${calling} AND t.user_id = o.owner_id) AS "tagOk"`);
      where.push(`r.game_id = ${calling}`, `EXISTS (SELECT 1 FROM friend_tag_links l WHERE l.relationship_id = r.id AND l.tag_id = ${tag})`);
    }
    if (p.after) {
      where.push(`(r.responded_at, r.id) < (${$(p.after.at)}::timestamptz, ${$(p.after.id)}::uuid)`);
    }
    const friendName = network
      ? `coalesce((SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = r.other_id AND ui.game_id = ${calling}), r.other_external_id)`
      : 'r.other_external_id';
    const tags = p.withTags
      ? `CASE WHEN r.game_id = ${calling}
           THEN ARRAY(SELECT l.tag_id::text FROM friend_tag_links l WHERE l.relationship_id = r.id ORDER BY l.tag_id)
           ELSE ARRAY[]::text[] END`
      : 'ARRAY[]::text[]';
    const limit = $(p.limit + 1);
    const shape = `${network ? 'n' : 's'}${p.viewerExternalId !== undefined ? 'v' : ''}${p.tagId !== undefined ? 't' : ''}${p.after ? 'a' : ''}${p.withTags ? 'g' : ''}`;
    // The ids are looked up once (a materialized CTE, not inlined at each use). The page is
    // limited inside the lateral subquery, in index order; the outer sort only restates that
    // order for the at most limit + 1 rows.
    const rows = await preparedRows<ListRow>(
      ds,
      `friends_list_json_${shape}`,
      `WITH o AS MATERIALIZED (SELECT ${ids.join(', ')})
       SELECT ${facts.map((f) => `${f}, `).join('')}page.packed
       FROM o LEFT JOIN LATERAL (
         SELECT r.responded_at, r.id, ${packedSql(friendJsonParts(friendName, tags))} AS packed
         FROM user_relationships r WHERE ${where.join(' AND ')}
         ORDER BY r.responded_at DESC, r.id DESC LIMIT ${limit}
       ) page ON true
       ORDER BY page.responded_at DESC, page.id DESC`,
      params,
    );
    const [first] = rows;
    return {
      storedVisibility: first.storedVisibility ?? null,
      blocked: first.blocked ?? false,
      isFriend: first.isFriend ?? false,
      tagOk: first.tagOk ?? false,
      rows: rows.flatMap((r) => (r.packed === null ? [] : [unpack(r.packed)])),
    };
  }

  /**
   * What stands between a viewer and another user, both named by their external ids in the calling
   * game: the row each holds towards the other in the calling game (one per direction at most, on
   * user_relationships_pair) and, across a network, the earliest friendship in any read game.
   */
  async relationshipFacts(
    ds: DataSource,
    q: { callingGameId: string; readGameIds: string[]; viewerExternalId: string; otherExternalId: string },
  ): Promise<RelationshipFacts> {
    const network = q.readGameIds.length > 1;
    const [row] = await preparedRows<PairRow>(
      ds,
      `friends_relationship_${network ? 'n' : 's'}`,
      `WITH ids AS MATERIALIZED (SELECT ${internalIdSql('$1::uuid', '$2')} AS me, ${internalIdSql('$1::uuid', '$3')} AS other)
       SELECT mine.type AS "mineType", mine.created_at AS "mineCreatedAt", mine.responded_at AS "mineRespondedAt",
         theirs.type AS "theirsType", theirs.created_at AS "theirsCreatedAt", theirs.responded_at AS "theirsRespondedAt"
         ${
           network
             ? `, (SELECT min(f.responded_at) FROM user_relationships f
                  WHERE f.user_id = ids.me AND f.other_id = ids.other AND f.game_id = ANY($4::uuid[]) AND f.type = 'friend')
                AS "networkFriendsSince"`
             : ''
         }
       FROM ids
       LEFT JOIN user_relationships mine ON mine.user_id = ids.me AND mine.other_id = ids.other AND mine.game_id = $1::uuid
       LEFT JOIN user_relationships theirs ON theirs.user_id = ids.other AND theirs.other_id = ids.me AND theirs.game_id = $1::uuid`,
      network
        ? [q.callingGameId, q.viewerExternalId, q.otherExternalId, q.readGameIds]
        : [q.callingGameId, q.viewerExternalId, q.otherExternalId],
    );
    const at = (type: RelationshipType, side: 'mine' | 'theirs') => (row[`${side}Type`] === type ? row[`${side}CreatedAt`] : null);
    const friendsInGame = row.mineType === 'friend' ? row.mineRespondedAt : row.theirsType === 'friend' ? row.theirsRespondedAt : null;
    return {
      blockedByMeAt: at('blocked', 'mine'),
      blockedByThemAt: at('blocked', 'theirs'),
      friendsSince: network ? (row.networkFriendsSince ?? null) : friendsInGame,
      outgoingRequestAt: at('request', 'mine'),
      incomingRequestAt: at('request', 'theirs'),
    };
  }
}
