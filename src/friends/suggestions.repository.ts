import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { preparedRows } from '../db/sql';
import { internalIdSql } from '../identity/identity.repository';
import type { SuggestionRow } from './friend-rows';
import { KEPT_SUGGESTIONS, friendsVersionSql, inGames, nameSql, ownVersionSql, type SuggestionsScope } from './suggestions-sql';

export interface SuggestionsQuery {
  callingGameId: string;
  /** Sorted, so that a kept list's scope compares equal. */
  readGameIds: string[];
  minMutuals: number;
  limit: number;
}

/** What the kept-list read found: the user's internal id (null: unknown here) and the valid list. */
export interface KeptSuggestions {
  userId: string | null;
  items: SuggestionRow[] | null;
}

/** A kept list that a friendship change near it left stale, with what it was computed for. */
export interface StaleList {
  userId: string;
  gameId: string;
  minMutuals: number;
  readGameIds: string[];
}

/** A network's kept items named again, as the calling game names them now. */
const renamedSql = (s: SuggestionsScope): string =>
  `(SELECT coalesce(json_agg(json_build_object('svcUserId', ${nameSql(s, '(e.item->>\'id\')::uuid')}, 'mutualCount', (e.item->>'n')::int,
     'sampleMutualSvcUserIds', ARRAY(SELECT ${nameSql(s, 't.id::uuid')} FROM jsonb_array_elements_text(e.item->'s') WITH ORDINALITY t(id, o) ORDER BY t.o))
     ORDER BY e.ord), '[]'::json)
   FROM jsonb_array_elements(k.items) WITH ORDINALITY e(item, ord))`;

const scopeOf = (q: { readGameIds: string[] }, games: string): SuggestionsScope => ({ network: q.readGameIds.length > 1, games });

/**
 * Friend suggestions (SPEC §4 Friends rule 4) kept per user and game (migration 1765500000000):
 * a read returns the kept list while its version counters still hold, else the list is computed
 * on the primary and kept in the same statement.
 */
@Injectable()
export class SuggestionsRepository {
  /**
   * The kept list when its scope, minMutuals and counters all still match; the counters are read
   * only when a list is there (one per friend, index-only). Within one game a kept list's names are
   * those it was computed with: a user's external id in a game never changes, and an erasure
   * removes every list naming the user. Across a network a friend's name can change (from the
   * game where the friendship was made to this game's, once they have an identity here), so there
   * the names are read again.
   */
  async kept(ds: DataSource, q: SuggestionsQuery & { userExternalId: string }): Promise<KeptSuggestions> {
    const s = scopeOf(q, '$4');
    const [row] = await preparedRows<{ userId: string | null; items: SuggestionRow[] | null }>(
      ds,
      `friends_suggestions_kept_${s.network ? 'n' : 's'}`,
      `WITH me AS MATERIALIZED (
         SELECT ${internalIdSql('$1::uuid', '$2')} AS id
       )
       SELECT me.id AS "userId", (
         SELECT ${s.network ? renamedSql(s) : 'k.named'} FROM friend_suggestions k
         WHERE k.user_id = me.id AND k.game_id = $1::uuid AND k.min_mutuals = $3 AND k.read_game_ids = $4::uuid[]
           AND k.own_version = ${ownVersionSql('me.id')} AND k.friends_version = ${friendsVersionSql(s, 'me.id')}
       ) AS items
       FROM me`,
      [q.callingGameId, q.userExternalId, q.minMutuals, q.readGameIds],
    );
    return { userId: row.userId, items: row.userId && row.items ? row.items.slice(0, q.limit) : null };
  }

  /**
   * Computes a user's top 50, keeps it with the counters of the same snapshot, and returns the
   * first `limit` named in the calling game. A concurrent computation from an older snapshot may
   * overwrite a newer one: its counters then no longer match, and the next read computes again.
   *
   * The cost is the friend-of-friend pairs (friends x their friends): they are read by one
   * index-only scan of user_relationships_friends over the array of the user's friends and counted
   * by a hash aggregate on the candidate alone; the exclusions are applied to the counted groups
   * (against small hashed sets), and the samples (the five lowest internal ids among the mutual
   * friends) are gathered for the kept candidates only, from each one's own friend rows
   * (friendships are stored in both directions, so the candidate's friends among the user's
   * friends are exactly the mutual friends counted). Within one game a (friend, candidate) pair
   * occurs once; across a network the pairs are deduplicated first.
   */
  compute(ds: DataSource, q: SuggestionsQuery & { userId: string }): Promise<SuggestionRow[]> {
    const s = scopeOf(q, '$5');
    const distinct = s.network ? 'DISTINCT ' : '';
    return preparedRows<SuggestionRow>(
      ds,
      `friends_suggestions_compute_${s.network ? 'n' : 's'}`,
      `WITH counters AS MATERIALIZED (
         SELECT ${ownVersionSql('$2::uuid')} AS own, ${friendsVersionSql(s, '$2::uuid')} AS friends
       ), mine AS MATERIALIZED (
         SELECT ${distinct}f.other_id AS id FROM user_relationships f
         WHERE f.user_id = $2::uuid AND ${inGames(s, 'f')} AND f.type = 'friend'
       ), blocked AS MATERIALIZED (
         SELECT b.other_id AS id FROM user_relationships b WHERE b.user_id = $2::uuid AND b.game_id = $1::uuid AND b.type = 'blocked'
         UNION ALL
         SELECT b.user_id FROM user_relationships b WHERE b.other_id = $2::uuid AND b.game_id = $1::uuid AND b.type = 'blocked'
       ), candidates AS MATERIALIZED (
         SELECT c.id, c.n FROM (
           SELECT p.id, count(*)::int AS n FROM (
             SELECT ${distinct}ff.other_id AS id, ff.user_id AS mutual FROM user_relationships ff
             WHERE ff.user_id = ANY (ARRAY(SELECT id FROM mine)) AND ${inGames(s, 'ff')} AND ff.type = 'friend'
           ) p GROUP BY p.id
         ) c
         WHERE c.n >= $3
           AND c.id <> $2::uuid
           AND c.id NOT IN (SELECT id FROM mine)
           AND c.id NOT IN (SELECT id FROM blocked)
         ORDER BY c.n DESC, c.id
         LIMIT ${KEPT_SUGGESTIONS}
       ), sampled AS MATERIALIZED (
         SELECT c.id, c.n, ARRAY(
           SELECT ${distinct}cf.other_id FROM user_relationships cf
           WHERE cf.user_id = c.id AND ${inGames(s, 'cf')} AND cf.type = 'friend' AND cf.other_id IN (SELECT id FROM mine)
           ORDER BY 1 LIMIT 5
         ) AS samples
         FROM candidates c
       ), picked AS MATERIALIZED (
         SELECT p.id, p.n, p.samples, ${nameSql(s, 'p.id')} AS name,
                ARRAY(SELECT ${nameSql(s, 'x.id')} FROM unnest(p.samples) WITH ORDINALITY x(id, o) ORDER BY x.o) AS sample_names
         FROM sampled p
       ), stored AS (
         INSERT INTO friend_suggestions AS k (user_id, game_id, read_game_ids, min_mutuals, own_version, friends_version, items, named, mentions)
         SELECT $2::uuid, $1::uuid, $5::uuid[], $3, counters.own, counters.friends,
                coalesce((SELECT jsonb_agg(jsonb_build_object('id', p.id, 'n', p.n, 's', p.samples) ORDER BY p.n DESC, p.id) FROM picked p), '[]'::jsonb),
                coalesce((SELECT json_agg(json_build_object('svcUserId', p.name, 'mutualCount', p.n, 'sampleMutualSvcUserIds', p.sample_names)
                                          ORDER BY p.n DESC, p.id) FROM picked p), '[]'::json),
                ARRAY(SELECT p.id FROM picked p UNION SELECT unnest(p.samples) FROM picked p)
         FROM counters
         ON CONFLICT (user_id, game_id) DO UPDATE SET
           read_game_ids = excluded.read_game_ids, min_mutuals = excluded.min_mutuals, own_version = excluded.own_version,
           friends_version = excluded.friends_version, items = excluded.items, named = excluded.named, mentions = excluded.mentions, computed_at = now()
       )
       SELECT p.name AS "svcUserId", p.n AS "mutualCount", p.sample_names AS "sampleMutualSvcUserIds"
       FROM picked p
       ORDER BY p.n DESC, p.id
       LIMIT $4`,
      [q.callingGameId, q.userId, q.minMutuals, q.limit, q.readGameIds],
    );
  }

  /** Takes up to `n` users off the refresh queue; other instances skip the rows taken here. */
  async claimChanged(ds: DataSource, n: number): Promise<string[]> {
    const rows = await preparedRows<{ userId: string }>(
      ds,
      'friends_suggestions_claim',
      `DELETE FROM friend_suggestions_stale q
       WHERE q.user_id IN (SELECT c.user_id FROM friend_suggestions_stale c LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING q.user_id AS "userId"`,
      [n],
    );
    return rows.map((r) => r.userId);
  }

  /**
   * The kept lists whose counters moved, among those of the changed users and their friends (the
   * only users whose suggestions a change of theirs can alter), at most `n`.
   */
  staleNear(ds: DataSource, changed: string[], n: number): Promise<StaleList[]> {
    return preparedRows<StaleList>(
      ds,
      'friends_suggestions_stale_near',
      `WITH changed AS (SELECT unnest($1::uuid[]) AS id),
       near AS (
         SELECT id FROM changed
         UNION
         SELECT f.other_id FROM changed c JOIN user_relationships f ON f.user_id = c.id AND f.type = 'friend'
       )
       SELECT k.user_id AS "userId", k.game_id AS "gameId", k.min_mutuals AS "minMutuals", k.read_game_ids::text[] AS "readGameIds"
       FROM near JOIN friend_suggestions k ON k.user_id = near.id
       WHERE k.own_version <> ${ownVersionSql('k.user_id')}
          OR k.friends_version <> ${friendsVersionSql({ network: true, games: 'k.read_game_ids' }, 'k.user_id')}
       LIMIT $2`,
      [changed, n],
    );
  }
}
