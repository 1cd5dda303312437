import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import type { Keyset } from '../common/pagination/keyset';
import { sqlRows } from '../db/sql';
import type { ListVisibility } from '../game-config/game-config';
import { RELATIONSHIP_COLUMNS, type FriendListRow, type RelationshipRow, type SuggestionRow } from './friend-rows';

/** A user of a friends write: internal id and the external id the calling game knows them by. */
export interface Party {
  id: string;
  externalId: string;
}

export interface FriendsPage {
  ownerId: string;
  /** Games whose friendships are read (the network, or the calling game alone). */
  gameIds: string[];
  callingGameId: string;
  tagId?: string;
  /** Attach the owner's tag ids (owner or admin reading; never another viewer). */
  withTags: boolean;
  after?: Keyset;
  limit: number;
}

/** The friends graph: relationship rows of the three types and the per-user visibility. */
@Injectable()
export class FriendsRepository {
  /** Takes the advisory locks of {@link friendLockKeys}, in the order given (ascending). */
  async lock(m: EntityManager, keys: string[]): Promise<void> {
    for (const key of keys) await m.query('SELECT pg_advisory_xact_lock($1::bigint)', [key]);
  }

  /** Every row between two users in a game, in both directions. */
  pairRows(m: EntityManager, gameId: string, a: string, b: string): Promise<RelationshipRow[]> {
    return sqlRows<RelationshipRow>(
      m,
      `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
       WHERE r.game_id = $1 AND ((r.user_id = $2 AND r.other_id = $3) OR (r.user_id = $3 AND r.other_id = $2))`,
      [gameId, a, b],
    );
  }

  /** When a's friendship with b began, in any of the games (earliest), or null. */
  async friendsSince(m: EntityManager, gameIds: string[], a: string, b: string): Promise<Date | null> {
    const [row] = await sqlRows<{ since: Date }>(
      m,
      `SELECT min(r.responded_at) AS since FROM user_relationships r
       WHERE r.user_id = $2 AND r.other_id = $3 AND r.game_id = ANY($1::uuid[]) AND r.type = 'friend'`,
      [gameIds, a, b],
    );
    return row?.since ?? null;
  }

  async countFriends(m: EntityManager, gameId: string, userId: string): Promise<number> {
    const [row] = await sqlRows<{ n: number }>(
      m,
      `SELECT count(*)::int AS n FROM user_relationships WHERE user_id = $1 AND game_id = $2 AND type = 'friend'`,
      [userId, gameId],
    );
    return row.n;
  }

  async countOutboundRequests(m: EntityManager, gameId: string, userId: string): Promise<number> {
    const [row] = await sqlRows<{ n: number }>(
      m,
      `SELECT count(*)::int AS n FROM user_relationships WHERE user_id = $1 AND game_id = $2 AND type = 'request'`,
      [userId, gameId],
    );
    return row.n;
  }

  async insertRequest(m: EntityManager, gameId: string, from: Party, to: Party): Promise<RelationshipRow> {
    const [row] = await sqlRows<RelationshipRow>(
      m,
      `INSERT INTO user_relationships AS r (id, game_id, user_id, other_id, user_external_id, other_external_id, type)
       VALUES ($1, $2, $3, $4, $5, $6, 'request') RETURNING ${RELATIONSHIP_COLUMNS}`,
      [uuidv7(), gameId, from.id, to.id, from.externalId, to.externalId],
    );
    return row;
  }

  /** Both rows of a new friendship in one statement; the first returned is a's (owner a). */
  async insertFriendship(m: EntityManager, gameId: string, a: Party, b: Party): Promise<RelationshipRow[]> {
    const rows = await sqlRows<RelationshipRow>(
      m,
      `INSERT INTO user_relationships AS r
         (id, game_id, user_id, other_id, user_external_id, other_external_id, type, created_at, responded_at)
       VALUES ($1, $3, $4, $5, $6, $7, 'friend', now(), now()), ($2, $3, $5, $4, $7, $6, 'friend', now(), now())
       RETURNING ${RELATIONSHIP_COLUMNS}`,
      [uuidv7(), uuidv7(), gameId, a.id, b.id, a.externalId, b.externalId],
    );
    return [rows.find((r) => r.userId === a.id)!, rows.find((r) => r.userId === b.id)!];
  }

  /** A pending request of a game; `lock` holds it against concurrent responders. */
  async findRequest(m: EntityManager, gameId: string, id: string, lock = false): Promise<RelationshipRow | null> {
    const [row] = await sqlRows<RelationshipRow>(
      m,
      `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
       WHERE r.id = $1 AND r.game_id = $2 AND r.type = 'request'${lock ? ' FOR UPDATE' : ''}`,
      [id, gameId],
    );
    return row ?? null;
  }

  /**
   * Accept: the request row becomes the sender's friend row in place (createdAt kept) and the
   * mirror row is added, in one statement. Null when the row is no longer a pending request.
   */
  async accept(m: EntityManager, id: string): Promise<RelationshipRow | null> {
    const [row] = await sqlRows<RelationshipRow>(
      m,
      `WITH accepted AS (
         UPDATE user_relationships SET type = 'friend', responded_at = now()
         WHERE id = $1 AND type = 'request' RETURNING *
       ), mirror AS (
         INSERT INTO user_relationships
           (id, game_id, user_id, other_id, user_external_id, other_external_id, type, created_at, responded_at)
         SELECT $2, game_id, other_id, user_id, other_external_id, user_external_id, 'friend', responded_at, responded_at
         FROM accepted
       )
       SELECT ${RELATIONSHIP_COLUMNS} FROM accepted r`,
      [id, uuidv7()],
    );
    return row ?? null;
  }

  /** Deletes a pending request; null when it was not one. */
  async deleteRequest(m: EntityManager, id: string): Promise<RelationshipRow | null> {
    const [row] = await sqlRows<RelationshipRow>(
      m,
      `DELETE FROM user_relationships r WHERE r.id = $1 AND r.type = 'request' RETURNING ${RELATIONSHIP_COLUMNS}`,
      [id],
    );
    return row ?? null;
  }

  /** Deletes both rows of a friendship in a game; the number of rows removed (0 or 2). */
  async deleteFriendship(m: EntityManager, gameId: string, a: string, b: string): Promise<number> {
    const rows = await sqlRows(
      m,
      `DELETE FROM user_relationships
       WHERE game_id = $1 AND type = 'friend' AND ((user_id = $2 AND other_id = $3) OR (user_id = $3 AND other_id = $2))
       RETURNING 1`,
      [gameId, a, b],
    );
    return rows.length;
  }

  /**
   * Block (SPEC §3): removes the friendship and pending requests both ways, then adds the block
   * unless it exists (idempotent): the block row, and whether this call created it.
   */
  async block(m: EntityManager, gameId: string, by: Party, other: Party): Promise<{ row: RelationshipRow; created: boolean }> {
    await m.query(
      `DELETE FROM user_relationships
       WHERE game_id = $1 AND type <> 'blocked' AND ((user_id = $2 AND other_id = $3) OR (user_id = $3 AND other_id = $2))`,
      [gameId, by.id, other.id],
    );
    const [created] = await sqlRows<RelationshipRow>(
      m,
      `INSERT INTO user_relationships AS r (id, game_id, user_id, other_id, user_external_id, other_external_id, type)
       VALUES ($1, $2, $3, $4, $5, $6, 'blocked')
       ON CONFLICT (user_id, other_id, game_id) DO NOTHING RETURNING ${RELATIONSHIP_COLUMNS}`,
      [uuidv7(), gameId, by.id, other.id, by.externalId, other.externalId],
    );
    if (created) return { row: created, created: true };
    const [existing] = await sqlRows<RelationshipRow>(
      m,
      `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
       WHERE r.user_id = $2 AND r.other_id = $3 AND r.game_id = $1 AND r.type = 'blocked'`,
      [gameId, by.id, other.id],
    );
    return { row: existing, created: false };
  }

  async unblock(m: EntityManager, gameId: string, by: string, other: string): Promise<RelationshipRow | null> {
    const [row] = await sqlRows<RelationshipRow>(
      m,
      `DELETE FROM user_relationships r WHERE r.user_id = $2 AND r.other_id = $3 AND r.game_id = $1 AND r.type = 'blocked'
       RETURNING ${RELATIONSHIP_COLUMNS}`,
      [gameId, by, other],
    );
    return row ?? null;
  }

  /** Whether either user has blocked the other in the game. */
  async blockedEitherWay(m: EntityManager, gameId: string, a: string, b: string): Promise<boolean> {
    const rows = await sqlRows(
      m,
      `SELECT 1 FROM user_relationships
       WHERE game_id = $1 AND type = 'blocked' AND ((user_id = $2 AND other_id = $3) OR (user_id = $3 AND other_id = $2))`,
      [gameId, a, b],
    );
    return rows.length > 0;
  }

  /** A user's pending requests, newest first: the complete sets (SPEC §4 lists no pagination). */
  async requests(m: EntityManager, gameId: string, userId: string, direction: 'in' | 'out' | 'both') {
    const query = (column: 'user_id' | 'other_id') =>
      sqlRows<RelationshipRow>(
        m,
        `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
         WHERE r.${column} = $1 AND r.game_id = $2 AND r.type = 'request' ORDER BY r.created_at DESC, r.id DESC`,
        [userId, gameId],
      );
    const [inbound, outbound] = await Promise.all([
      direction === 'out' ? [] : query('other_id'),
      direction === 'in' ? [] : query('user_id'),
    ]);
    return { inbound, outbound };
  }

  /**
   * One page of a friends list in (respondedAt, id) descending order, on user_relationships_friends.
   * Across several games (network scope) a friend met in two games is listed once, with the
   * earliest friendship, and a friend the owner blocked, or who blocked them, in the calling game
   * is left out. The friend is named by their external id in the calling game when they have one,
   * else by the one in the game the friendship was made in.
   */
  listFriends(m: EntityManager, p: FriendsPage): Promise<FriendListRow[]> {
    const params: unknown[] = [];
    const $ = (value: unknown) => `$${params.push(value)}`;
    const network = p.gameIds.length > 1;
    // One game is an equality, so the index yields rows in page order with no sort.
    const games = network ? `${$(p.gameIds)}::uuid[]` : '';
    const where = [
      `r.user_id = ${$(p.ownerId)}`,
      network ? `r.game_id = ANY(${games})` : `r.game_id = ${$(p.gameIds[0])}::uuid`,
      `r.type = 'friend'`,
    ];
    let callingRef: string | undefined;
    const calling = () => (callingRef ??= `${$(p.callingGameId)}::uuid`);
    if (network) {
      where.push(`NOT EXISTS (SELECT 1 FROM user_relationships d
        WHERE d.user_id = r.user_id AND d.other_id = r.other_id AND d.game_id = ANY(${games}) AND d.type = 'friend'
          AND (d.responded_at, d.id) < (r.responded_at, r.id))`);
      where.push(`NOT EXISTS (SELECT 1 FROM user_relationships b
        WHERE b.game_id = ${calling()} AND b.type = 'blocked'
          AND ((b.user_id = r.user_id AND b.other_id = r.other_id) OR (b.user_id = r.other_id AND b.other_id = r.user_id)))`);
    }
    if (p.tagId) {
      where.push(`r.game_id = ${calling()}`, `EXISTS (SELECT 1 FROM friend_tag_links l WHERE l.relationship_id = r.id AND l.tag_id = ${$(p.tagId)})`);
    }
    if (p.after) {
      where.push(`(r.responded_at, r.id) < (${$(p.after.at)}::timestamptz, ${$(p.after.id)}::uuid)`);
    }
    const friendName = network
      ? `coalesce((SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = r.other_id AND ui.game_id = ${calling()}), r.other_external_id)`
      : 'r.other_external_id';
    const tags = p.withTags
      ? `CASE WHEN r.game_id = ${calling()}
           THEN ARRAY(SELECT l.tag_id::text FROM friend_tag_links l WHERE l.relationship_id = r.id ORDER BY l.tag_id)
           ELSE ARRAY[]::text[] END`
      : 'ARRAY[]::text[]';
    return sqlRows<FriendListRow>(
      m,
      `SELECT ${RELATIONSHIP_COLUMNS}, ${friendName} AS "friendExternalId", ${tags} AS "tagIds"
       FROM user_relationships r WHERE ${where.join(' AND ')}
       ORDER BY r.responded_at DESC, r.id DESC LIMIT ${$(p.limit + 1)}`,
      params,
    );
  }

  /** The owner-side friend row of a friendship in a game; `lock` holds it for a tag update. */
  async friendRow(m: EntityManager, gameId: string, ownerId: string, friendId: string, lock = false): Promise<RelationshipRow | null> {
    const [row] = await sqlRows<RelationshipRow>(
      m,
      `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
       WHERE r.user_id = $2 AND r.other_id = $3 AND r.game_id = $1 AND r.type = 'friend'${lock ? ' FOR UPDATE' : ''}`,
      [gameId, ownerId, friendId],
    );
    return row ?? null;
  }

  /** A user's outbound blocks, newest first, on user_relationships_outbound. */
  listBlocks(m: EntityManager, gameId: string, userId: string, after: Keyset | undefined, limit: number): Promise<RelationshipRow[]> {
    const params: unknown[] = [userId, gameId, limit + 1];
    let keyset = '';
    if (after) {
      params.push(after.at, after.id);
      keyset = 'AND (r.created_at, r.id) < ($4::timestamptz, $5::uuid)';
    }
    return sqlRows<RelationshipRow>(
      m,
      `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
       WHERE r.user_id = $1 AND r.game_id = $2 AND r.type = 'blocked' ${keyset}
       ORDER BY r.created_at DESC, r.id DESC LIMIT $3`,
      params,
    );
  }

  /**
   * Friend suggestions (SPEC §4 Friends rule 4) in one statement: friends of the user's friends
   * that share at least `minMutuals` of them, minus the user, their friends and anyone blocked
   * either way in the calling game; most mutual friends first (then internal id), each with up to
   * five sample mutual friends. Users are named by their external id in the calling game, else (a
   * network friend unknown to this game) by the one in the game where the friendship was made.
   * Within one game a (friend, friend-of-friend) pair occurs once, so the candidates are counted by
   * a plain hash aggregate; across a network the pairs are deduplicated first.
   */
  suggestions(
    m: EntityManager,
    q: { userId: string; gameIds: string[]; callingGameId: string; minMutuals: number; limit: number },
  ): Promise<SuggestionRow[]> {
    const network = q.gameIds.length > 1;
    const inGames = (alias: string) => (network ? `${alias}.game_id = ANY($2::uuid[])` : `${alias}.game_id = $2::uuid`);
    const name = (ref: string) =>
      network
        ? `coalesce(
             (SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = ${ref} AND ui.game_id = $3),
             (SELECT x.other_external_id FROM user_relationships x
              WHERE x.other_id = ${ref} AND ${inGames('x')} AND x.type = 'friend' LIMIT 1))`
        : `(SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = ${ref} AND ui.game_id = $3)`;
    return sqlRows<SuggestionRow>(
      m,
      `WITH mine AS MATERIALIZED (
         SELECT DISTINCT f.other_id AS id FROM user_relationships f
         WHERE f.user_id = $1 AND ${inGames('f')} AND f.type = 'friend'
       ), blocked AS MATERIALIZED (
         SELECT b.other_id AS id FROM user_relationships b WHERE b.user_id = $1 AND b.game_id = $3 AND b.type = 'blocked'
         UNION
         SELECT b.user_id FROM user_relationships b WHERE b.other_id = $1 AND b.game_id = $3 AND b.type = 'blocked'
       ), fof AS (
         SELECT ff.other_id AS id, ff.user_id AS mutual
         FROM mine JOIN user_relationships ff ON ff.user_id = mine.id AND ${inGames('ff')} AND ff.type = 'friend'
         WHERE ff.other_id <> $1
           AND ff.other_id NOT IN (SELECT id FROM mine)
           AND ff.other_id NOT IN (SELECT id FROM blocked)
         ${network ? 'GROUP BY ff.other_id, ff.user_id' : ''}
       ), candidates AS (
         SELECT id, count(*)::int AS mutual_count, (array_agg(mutual))[1:5] AS samples
         FROM fof GROUP BY id HAVING count(*) >= $4
         ORDER BY mutual_count DESC, id
         LIMIT $5
       )
       SELECT
         ${name('c.id')} AS "svcUserId",
         c.mutual_count AS "mutualCount",
         ARRAY(SELECT ${name('s.id')} FROM unnest(c.samples) AS s(id) ORDER BY s.id) AS "sampleMutualSvcUserIds"
       FROM candidates c
       ORDER BY c.mutual_count DESC, c.id`,
      [q.userId, network ? q.gameIds : q.gameIds[0], q.callingGameId, q.minMutuals, q.limit],
    );
  }

  async visibility(m: EntityManager, gameId: string, userId: string): Promise<ListVisibility | null> {
    const [row] = await sqlRows<{ v: ListVisibility }>(
      m,
      'SELECT friends_list_visibility AS v FROM friend_settings WHERE user_id = $1 AND game_id = $2',
      [userId, gameId],
    );
    return row?.v ?? null;
  }

  async setVisibility(m: EntityManager, gameId: string, userId: string, v: ListVisibility): Promise<void> {
    await m.query(
      `INSERT INTO friend_settings (user_id, game_id, friends_list_visibility) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, game_id) DO UPDATE SET friends_list_visibility = EXCLUDED.friends_list_visibility, updated_at = now()`,
      [userId, gameId, v],
    );
  }
}
