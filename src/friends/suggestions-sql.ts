/**
 * SQL fragments shared by the kept-list read and the computation of friend suggestions. $1 is the
 * calling game in both.
 */
export interface SuggestionsScope {
  /** More than one read game: friendships of the whole network count. */
  network: boolean;
  /** What holds the read games (a parameter, or a kept list's column): the network, or the calling game alone, sorted. */
  games: string;
}

export const inGames = (s: SuggestionsScope, alias: string): string =>
  s.network ? `${alias}.game_id = ANY(${s.games}::uuid[])` : `${alias}.game_id = $1::uuid`;

/**
 * A user's external id in the calling game, else (a network friend unknown to this game) the one
 * in the game where a friendship with them was made (DECISIONS 23).
 */
export const nameSql = (s: SuggestionsScope, ref: string): string =>
  s.network
    ? `coalesce(
         (SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = ${ref} AND ui.game_id = $1::uuid),
         (SELECT x.other_external_id FROM user_relationships x
          WHERE x.other_id = ${ref} AND ${inGames(s, 'x')} AND x.type = 'friend' LIMIT 1))`
    : `(SELECT ui.external_id FROM user_identities ui WHERE ui.user_id = ${ref} AND ui.game_id = $1::uuid)`;

/**
 * The two counters a kept list is valid for (migration 1765500000000): the user's own, and the sum
 * over their friend rows in the read games of each friend's counter. A friend in several read games
 * is summed once per game, the same way when the list is computed and when it is checked, so the
 * sum still moves whenever any friend's counter does.
 */
export const ownVersionSql = (user: string): string =>
  `coalesce((SELECT v.version FROM friend_versions v WHERE v.user_id = ${user}), 0)`;

// A scalar subquery a friend, so that each is one probe of friend_versions' key whatever the
// table's size: as a join, the planner may hash the whole table.
export const friendsVersionSql = (s: SuggestionsScope, user: string): string =>
  `coalesce((SELECT sum((SELECT v.version FROM friend_versions v WHERE v.user_id = f.other_id)) FROM user_relationships f
             WHERE f.user_id = ${user} AND ${inGames(s, 'f')} AND f.type = 'friend'), 0)`;

/** The most suggestions a read can ask for (SPEC §8), and so the length of a kept list. */
export const KEPT_SUGGESTIONS = 50;
