import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import type { Keyset } from '../common/pagination/keyset';
import { lockBeforeNextStatement, sqlRows, unitOfWorkClient } from '../db/sql';
import type { ListVisibility } from '../game-config/game-config';
import { RELATIONSHIP_COLUMNS, type RelationshipRow, type RelationshipType } from './friend-rows';

/** A user of a friends write: internal id and the external id the calling game knows them by. */
export interface Party {
  id: string;
  externalId: string;
}

export interface FriendCounts {
  friendsA: number;
  friendsB: number;
  requestsA: number;
}

/** SPEC §8's caps, as a game's friends settings give them. */
export interface FriendCaps {
  maxFriends: number;
  maxPendingRequests: number;
}

/** A row a statement may not have made: every column null then. */
type Nullable<T> = { [K in keyof T]: T[K] | null };

/** What FriendsRepository.send found, and the request it made (null when none). */
export type SendChecked = FriendCounts & { pairTypes: RelationshipType[]; elsewhere: boolean; request: RelationshipRow | null };

/** What FriendsRepository.accept found, and the sender's friend row it made (null when none). */
export type AcceptChecked = FriendCounts & { pending: boolean; friendship: RelationshipRow | null };

const madeRow = (row: Nullable<RelationshipRow>): RelationshipRow | null => (row.id === null ? null : (row as RelationshipRow));

/**
 * The cap counts of users $1 and $2 in game $3: the friends of each and the requests $1 has sent,
 * each its own subquery on its own index.
 */
const COUNTS = `(SELECT count(*) FROM user_relationships WHERE user_id = $1 AND game_id = $3 AND type = 'friend')::int AS "friendsA",
  (SELECT count(*) FROM user_relationships WHERE user_id = $2 AND game_id = $3 AND type = 'friend')::int AS "friendsB",
  (SELECT count(*) FROM user_relationships WHERE user_id = $1 AND game_id = $3 AND type = 'request')::int AS "requestsA"`;

/** The friends graph: relationship rows of the three types and the per-user visibility. */
@Injectable()
export class FriendsRepository {
  /**
   * Takes the advisory locks of {@link friendLockKeys} in the order given (ascending), before the
   * next statement of the write runs and in its batch: no round trip of its own.
   */
  async lock(m: EntityManager, keys: string[]): Promise<void> {
    await lockBeforeNextStatement(m, keys.map((key) => ({ key, exclusive: true })));
  }

  /**
   * A send's checks, and its request made in the same statement when none refuses it: the types of
   * the rows between `from` and `to` (either direction); whether they are friends in another game
   * of `networkGameIds` (network scope; pass none otherwise); the {@link COUNTS}; and, with `caps`,
   * the request, inserted when there is no row between them, no friendship elsewhere, and no count
   * at its cap. Without `caps` (a game that takes no requests) none is made.
   */
  async send(m: EntityManager, gameId: string, from: Party, to: Party, networkGameIds: string[], caps: FriendCaps | null): Promise<SendChecked> {
    // Planned each call under `auto` (0.4 ms, more than it runs): every path it takes is an index's.
    unitOfWorkClient(m)?.genericPlanNext();
    const [row] = await sqlRows<FriendCounts & { pairTypes: RelationshipType[]; elsewhere: boolean } & Nullable<RelationshipRow>>(
      m,
      `WITH c AS (
         SELECT ARRAY(SELECT r.type FROM user_relationships r
                      WHERE r.game_id = $3 AND ((r.user_id = $1 AND r.other_id = $2) OR (r.user_id = $2 AND r.other_id = $1))) AS "pairTypes",
                EXISTS (SELECT 1 FROM user_relationships r
                        WHERE r.user_id = $1 AND r.other_id = $2 AND r.game_id = ANY ($4::uuid[]) AND r.type = 'friend') AS elsewhere,
                ${COUNTS}
       ), made AS (
         INSERT INTO user_relationships AS r (id, game_id, user_id, other_id, user_external_id, other_external_id, type)
         SELECT $5, $3, $1, $2, $6, $7, 'request' FROM c
         WHERE cardinality(c."pairTypes") = 0 AND NOT c.elsewhere AND c."friendsA" < $8::int AND c."friendsB" < $8::int AND c."requestsA" < $9::int
         RETURNING ${RELATIONSHIP_COLUMNS}
       )
       SELECT c.*, made.* FROM c LEFT JOIN made ON true`,
      [from.id, to.id, gameId, networkGameIds, uuidv7(), from.externalId, to.externalId, caps?.maxFriends ?? null, caps?.maxPendingRequests ?? null],
    );
    const { pairTypes, elsewhere, friendsA, friendsB, requestsA, ...request } = row;
    return { pairTypes, elsewhere, friendsA, friendsB, requestsA, request: madeRow(request) };
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

  /** A pending request of a game (its writers lock the pair first: see lock). */
  async findRequest(m: EntityManager, gameId: string, id: string): Promise<RelationshipRow | null> {
    const [row] = await sqlRows<RelationshipRow>(
      m,
      `SELECT ${RELATIONSHIP_COLUMNS} FROM user_relationships r
       WHERE r.id = $1 AND r.game_id = $2 AND r.type = 'request'`,
      [id, gameId],
    );
    return row ?? null;
  }

  /**
   * Accept, checked and made in one statement: the {@link COUNTS} of the request's sender `a` and
   * recipient `b`, whether request `id` is still pending, and, when it is and neither has reached
   * `maxFriends`, the request row made the sender's friend row in place (createdAt kept) with its
   * mirror added. `friendship` is null when none was made.
   */
  async accept(m: EntityManager, gameId: string, a: string, b: string, id: string, maxFriends: number): Promise<AcceptChecked> {
    unitOfWorkClient(m)?.genericPlanNext();
    const [row] = await sqlRows<FriendCounts & { pending: boolean } & Nullable<RelationshipRow>>(
      m,
      `WITH c AS (
         SELECT ${COUNTS}, EXISTS (SELECT 1 FROM user_relationships WHERE id = $4 AND type = 'request') AS pending
       ), accepted AS (
         UPDATE user_relationships SET type = 'friend', responded_at = now()
         WHERE id = $4 AND type = 'request' AND (SELECT c."friendsA" < $6::int AND c."friendsB" < $6::int FROM c) RETURNING *
       ), mirror AS (
         INSERT INTO user_relationships
           (id, game_id, user_id, other_id, user_external_id, other_external_id, type, created_at, responded_at)
         SELECT $5, game_id, other_id, user_id, other_external_id, user_external_id, 'friend', responded_at, responded_at
         FROM accepted
       )
       SELECT c.*, ${RELATIONSHIP_COLUMNS} FROM c LEFT JOIN accepted r ON true`,
      [a, b, gameId, id, uuidv7(), maxFriends],
    );
    const { pending, friendsA, friendsB, requestsA, ...friendship } = row;
    return { pending, friendsA, friendsB, requestsA, friendship: madeRow(friendship) };
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
