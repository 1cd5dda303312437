import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { sqlRows } from '../db/sql';
import { externalKey } from '../identity/identity.repository';
import { mayBeUnindexed } from './unindexed-names';

/** Who is erased: the game, the external id, the internal id (null when the game never saw it), the pseudonym. */
export interface Subject {
  gameId: string;
  externalUserId: string;
  svcUserId: string | null;
  pseudonym: string;
}

/** A group the erased user owned: who owns it now (internal id; null: nobody). */
export interface HandedOn {
  id: string;
  name: string;
  kind: string;
  heirSvcUserId: string | null;
}

export interface RemovedCounts {
  memberships: number;
  friendships: number;
  friendRequests: number;
  blocks: number;
  tags: number;
  invitations: number;
  joinRequests: number;
  bans: number;
}

/** The one-way hash of an erased id in the ledger: SHA-256 of `<gameId>:<externalUserId>`, hex. */
export const subjectHashSql = (gameRef: string, externalRef: string): string =>
  `encode(sha256(convert_to(${gameRef}::uuid::text || ':' || ${externalRef}, 'UTF8')), 'hex')`;

const count = (rows: unknown[]): number => rows.length;

/**
 * The statements of an erasure (EXTENSIONS X7), each scoped to the subject's game.
 */
@Injectable()
export class UserErasureRepository {
  /**
   * Every audit entry, operator audit entry and event of the game naming the user, by either id,
   * anywhere, names the pseudonym instead (see {@link pseudonymiseStatement}). Returns how many
   * journal rows were rewritten.
   *
   * The rewritten rows' names go to the pending list of the index of names (fastupdate), and
   * whichever writer finds that list over gin_pending_list_limit merges all of it, in its own
   * request: left at the default 4 MB, an erasure of a long history would hand a player's join a
   * merge of seconds. Cleaning it from 64 kB on (the least PostgreSQL allows) while it writes, the
   * erasure pays for its own entries, and leaves at most that much behind.
   */
  async pseudonymiseHistory(m: EntityManager, s: Subject): Promise<number> {
    await m.query(`SET LOCAL gin_pending_list_limit = '64kB'`);
    const { sql, params } = pseudonymiseStatement(s, await mayBeUnindexed(m, idsOf(s)));
    const [row] = await sqlRows<{ rewritten: number }>(m, sql, params);
    return row.rewritten;
  }

  /** The friends graph: relationships both ways (their tag links go with them), tags, visibility. */
  async removeFriends(m: EntityManager, s: Subject): Promise<Pick<RemovedCounts, 'friendships' | 'friendRequests' | 'blocks' | 'tags'>> {
    if (!s.svcUserId) return { friendships: 0, friendRequests: 0, blocks: 0, tags: 0 };
    const [row] = await sqlRows<Pick<RemovedCounts, 'friendships' | 'friendRequests' | 'blocks' | 'tags'>>(
      m,
      `WITH rel AS (
         DELETE FROM user_relationships r WHERE r.game_id = $1 AND (r.user_id = $2 OR r.other_id = $2)
         RETURNING r.type, r.user_id
       ), tags AS (
         DELETE FROM friend_tags t WHERE t.user_id = $2 AND t.game_id = $1 RETURNING 1
       ), visibility AS (
         DELETE FROM friend_settings f WHERE f.user_id = $2 AND f.game_id = $1 RETURNING 1
       )
       SELECT (SELECT count(*) FROM rel WHERE type = 'friend' AND user_id = $2)::int AS friendships,
              (SELECT count(*) FROM rel WHERE type = 'request')::int AS "friendRequests",
              (SELECT count(*) FROM rel WHERE type = 'blocked')::int AS blocks,
              (SELECT count(*) FROM tags)::int AS tags,
              (SELECT count(*) FROM visibility)::int AS visibility`,
      [s.gameId, s.svcUserId],
    );
    return { friendships: row.friendships, friendRequests: row.friendRequests, blocks: row.blocks, tags: row.tags };
  }

  /** Invitations targeted at the user go; those they sent or redeemed stay, naming the pseudonym or nobody. */
  async removeInvitations(m: EntityManager, s: Subject): Promise<number> {
    const target = await sqlRows(
      m,
      `DELETE FROM invitations i WHERE i.game_id = $1 AND ${externalKey('i.target_user_id')} = ${externalKey('$2')} AND i.target_user_id = $2 RETURNING 1`,
      [s.gameId, s.externalUserId],
    );
    await m.query(
      `UPDATE invitations i SET invited_by_user_id = $3
       WHERE i.game_id = $1 AND ${externalKey('i.invited_by_user_id')} = ${externalKey('$2')} AND i.invited_by_user_id = $2`,
      [s.gameId, s.externalUserId, s.pseudonym],
    );
    if (s.svcUserId) await m.query(`UPDATE invitations i SET used_by = NULL WHERE i.used_by = $2 AND i.game_id = $1`, [s.gameId, s.svcUserId]);
    return count(target);
  }

  /** The user's join requests go; those they decided name the pseudonym. */
  async removeJoinRequests(m: EntityManager, s: Subject): Promise<number> {
    const removed = s.svcUserId
      ? await sqlRows(m, `DELETE FROM join_requests j WHERE j.game_id = $1 AND j.user_id = $2 RETURNING 1`, [s.gameId, s.svcUserId])
      : [];
    await m.query(`UPDATE join_requests j SET decided_by_user_id = $2 WHERE j.game_id = $1 AND j.decided_by_user_id = ANY ($3::text[])`, [
      s.gameId,
      s.pseudonym,
      idsOf(s),
    ]);
    return count(removed);
  }

  /** The game ban and the ban history of the user go; the bans and history they set name the pseudonym. */
  async removeGameBans(m: EntityManager, s: Subject): Promise<number> {
    const removed = s.svcUserId
      ? await sqlRows(
          m,
          `WITH history AS (DELETE FROM ban_history h WHERE h.game_id = $1 AND h.user_id = $2)
           DELETE FROM game_bans b WHERE b.game_id = $1 AND b.user_id = $2 RETURNING 1`,
          [s.gameId, s.svcUserId],
        )
      : [];
    await m.query(
      `WITH bans AS (UPDATE game_bans b SET banned_by = $2 WHERE b.game_id = $1 AND b.banned_by = ANY ($3::text[]))
       UPDATE ban_history h SET actor_user_id = $2 WHERE h.game_id = $1 AND h.actor_user_id = ANY ($3::text[])`,
      [s.gameId, s.pseudonym, idsOf(s)],
    );
    return count(removed);
  }

  /**
   * Every member row of the user in the game's groups, whatever its status (roles and overrides go
   * with it): the groups they were in, and how many rows were group bans.
   */
  async removeMemberships(m: EntityManager, s: Subject): Promise<{ groupIds: string[]; memberships: number; groupBans: number }> {
    if (!s.svcUserId) return { groupIds: [], memberships: 0, groupBans: 0 };
    const rows = await sqlRows<{ group_id: string; status: string }>(
      m,
      `DELETE FROM members mb USING groups g
       WHERE mb.user_id = $2 AND g.id = mb.group_id AND g.game_id = $1
       RETURNING mb.group_id, mb.status`,
      [s.gameId, s.svcUserId],
    );
    const groupBans = rows.filter((r) => r.status === 'banned').length;
    return { groupIds: [...new Set(rows.map((r) => r.group_id))], memberships: rows.length - groupBans, groupBans };
  }

  /**
   * Reports (EXTENSIONS X10) are the game's moderation record, kept as its audit log is: those the
   * user filed and those about them stay, naming the pseudonym instead (the tally of a subject
   * follows its id). Open ones stay open, and a pseudonym reporter still counts among a subject's
   * distinct reporters.
   */
  async pseudonymiseReports(m: EntityManager, s: Subject): Promise<void> {
    await m.query(
      `WITH filed AS (
         UPDATE reports r SET reporter_id = $3
         WHERE r.game_id = $1 AND svc_external_key(r.reporter_id) = svc_external_key($2) AND r.reporter_id = $2
       ), about AS (
         UPDATE reports r SET subject_id = $3
         WHERE r.game_id = $1 AND r.subject_type = 'user' AND svc_external_key(r.subject_id) = svc_external_key($2) AND r.subject_id = $2
       )
       UPDATE report_subjects t SET subject_id = $3
       WHERE t.game_id = $1 AND t.subject_type = 'user' AND t.subject_key = svc_external_key($2)`,
      [s.gameId, s.externalUserId, s.pseudonym],
    );
  }

  /**
   * The groups the user owned pass to their longest-standing other active member (earliest
   * joinedAt, then id), or to nobody. Run after the memberships are gone. Each group as it is
   * now, with its heir's internal id (null: nobody).
   */
  async handOnOwnership(m: EntityManager, s: Subject): Promise<HandedOn[]> {
    if (!s.svcUserId) return [];
    return sqlRows<HandedOn>(
      m,
      `UPDATE groups g SET owner_user_id = heir.user_id, owner_external_id = heir.external_user_id, updated_at = now()
       FROM groups o
       LEFT JOIN LATERAL (
         SELECT mb.user_id, mb.external_user_id FROM members mb
         WHERE mb.group_id = o.id AND mb.status = 'active' AND mb.user_id <> $2
         ORDER BY mb.joined_at, mb.id LIMIT 1
       ) heir ON true
       WHERE o.owner_user_id = $2 AND o.game_id = $1 AND g.id = o.id
       RETURNING g.id, g.name, g.kind, g.owner_user_id AS "heirSvcUserId"`,
      [s.gameId, s.svcUserId],
    );
  }

  /**
   * The user's notifications go (EXTENSIONS X9); those they caused to others name the pseudonym
   * (notifications_actor), as the audit names an erased actor. Run after the rows whose writers
   * could notify them are gone (a write notifying the user either committed before those rows
   * went, and its notification is removed here, or finds them gone).
   */
  async removeNotifications(m: EntityManager, s: Subject): Promise<void> {
    if (!s.svcUserId) return;
    await m.query(
      `WITH own AS (DELETE FROM notifications n WHERE n.game_id = $1 AND n.user_id = $2)
       UPDATE notifications n SET actor_user_id = NULL, actor_pseudonym = $3 WHERE n.actor_user_id = $2 AND n.game_id = $1`,
      [s.gameId, s.svcUserId, s.pseudonym],
    );
  }

  /**
   * The kept friend suggestions that name the user, in any game, and the user's own in this one
   * go, with the user's place in their refresh queue. The table lock (which only computations of
   * a list conflict with, not reads of one) makes a computation that began before the erasure
   * finish first, so that its list is removed here too, and one that begins after wait for the
   * commit, so that it never sees the user.
   */
  async removeSuggestions(m: EntityManager, s: Subject): Promise<void> {
    if (!s.svcUserId) return;
    await m.query('LOCK TABLE friend_suggestions IN SHARE ROW EXCLUSIVE MODE');
    await m.query(
      `WITH lists AS (
         DELETE FROM friend_suggestions k WHERE k.mentions @> ARRAY[$2::uuid] OR (k.user_id = $2 AND k.game_id = $1)
       )
       DELETE FROM friend_suggestions_stale q WHERE q.user_id = $2`,
      [s.gameId, s.svcUserId],
    );
  }

  /**
   * The game forgets the id; the internal user goes too unless another game still knows them, and
   * then their friendship counter with them (they have no friendships left anywhere, and every
   * former friend's own counter moved when theirs went, so no kept list can mistake a later one).
   */
  async forgetIdentity(m: EntityManager, s: Subject): Promise<void> {
    if (!s.svcUserId) return;
    await m.query(
      `WITH mapping AS (DELETE FROM user_identities ui WHERE ui.game_id = $1 AND ui.user_id = $2),
       gone AS (
         DELETE FROM users u WHERE u.id = $2
           AND NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.user_id = $2 AND ui.game_id <> $1)
         RETURNING u.id
       )
       DELETE FROM friend_versions v WHERE v.user_id IN (SELECT id FROM gone)`,
      [s.gameId, s.svcUserId],
    );
  }

  /** Records the erasure in the ledger; its time is the erasure's. */
  async record(m: EntityManager, s: Subject): Promise<Date> {
    const [row] = await sqlRows<{ erased_at: Date }>(
      m,
      `INSERT INTO erasures (id, game_id, subject_hash, erased_at)
       VALUES (svc_uuidv7(), $1, ${subjectHashSql('$1', '$2')}, statement_timestamp()) RETURNING erased_at`,
      [s.gameId, s.externalUserId],
    );
    return row.erased_at;
  }
}

/**
 * The statement of {@link UserErasureRepository.pseudonymiseHistory}. The JSON text's string tokens
 * equal to an id are swapped whole, object keys included (a token is quoted, so a longer string that
 * contains the id is left alone): ids, order and counts stay. Parameters: $1 game, $2 pseudonym,
 * then the user's ids. Answers how many journal rows were rewritten.
 *
 * The journal's rows to rewrite are those whose names hold an id's hash (journal_names), rewritten
 * in one pass, each row read and written once (a read of the candidates joined back to the journal
 * was planned as a hash join over the whole journal once they were many). With `unindexed` (an id
 * that writers may leave out of the names, mayBeUnindexed), they are found by reading the game's
 * journal instead: the rows that name an id, or hold its hash. The old audit_entries and
 * outbox_events are not touched: since release 1.6.0 they are empty (migration OldTablesEmptied),
 * their history being the journal's.
 *
 * A row's names lose the ids' hashes and gain the pseudonym's where a string became it, so no hash
 * of an id stays behind and what the row's writer left out stays out. An id's hash stays only where
 * another string of the row has the same hash (a collision of the 32 bits), so that string is still
 * found by it.
 */
export function pseudonymiseStatement(s: Subject, unindexed = false): { sql: string; params: unknown[] } {
  const ids = idsOf(s);
  const refs = ids.map((_, i) => `$${i + 3}::text`);
  const idList = `ARRAY[${refs.join(', ')}]`;
  const idHashes = `ARRAY[${refs.map((r) => `svc_name_hash(${r})`).join(', ')}]`;
  const swap = (doc: string) => refs.reduce((text, r) => `replace(${text}, to_jsonb(${r})::text, to_jsonb($2::text)::text)`, `${doc}::text`) + '::jsonb';
  const named = (names: string) => refs.map((r) => `${names} @> jsonb_build_array(${r})`).join(' OR ');
  const actorIs = s.svcUserId ? `j.actor_user_id = $4::uuid` : 'false';
  // The strings of a row that may become the pseudonym (the actor becomes a pseudonym of its own column).
  const strings = `coalesce(svc_names(j.payload), '[]') || coalesce(svc_names(j.body), '[]') || jsonb_build_array(j.target_id)`;
  const byNames = `j.names && ${idHashes}`;
  // An id the names may lack (mayBeUnindexed): every row of the game is read, and those that name
  // it or hold its hash are rewritten.
  const found = unindexed
    ? `j.game_id = $1 AND (${byNames} OR ${actorIs} OR ${named(`(${strings})`)})`
    : `${byNames} AND j.game_id = $1`;
  return {
    sql: `WITH journal_rows AS (
         UPDATE journal j SET
           payload = ${swap('j.payload')}, body = ${swap('j.body')},
           target_id = CASE WHEN j.target_id IN (${refs.join(', ')}) THEN $2 ELSE j.target_id END,
           actor_pseudonym = CASE WHEN ${actorIs} THEN $2 ELSE j.actor_pseudonym END,
           actor_user_id = CASE WHEN ${actorIs} THEN NULL ELSE j.actor_user_id END,
           names = (SELECT ARRAY(
               SELECT h FROM unnest(j.names) h WHERE h <> ALL (${idHashes})
               UNION SELECT svc_name_hash(n) FROM jsonb_array_elements_text(w.strings || jsonb_build_array(j.actor_user_id::text)) n
                 WHERE n <> ALL (${idList}) AND svc_name_hash(n) = ANY (${idHashes})
               UNION SELECT svc_name_hash($2::text) WHERE w.strings ?| ${idList}
               ORDER BY 1)
             FROM (SELECT ${strings} AS strings) w)
         WHERE ${found}
         RETURNING 1
       ), operator_actions AS (
         UPDATE operator_audit x SET
           details = ${swap('x.details')},
           target_id = CASE WHEN x.target_id IN (${refs.join(', ')}) THEN $2 ELSE x.target_id END
         WHERE x.game_id = $1 AND (x.target_id IN (${refs.join(', ')}) OR ${named('svc_names(x.details)')})
       )
       SELECT count(*)::int AS rewritten FROM journal_rows`,
    params: [s.gameId, s.pseudonym, ...ids],
  };
}

/** The ids a text column may name the user by: the external id, and the internal one if any. */
function idsOf(s: Subject): string[] {
  return [s.externalUserId, ...(s.svcUserId ? [s.svcUserId] : [])];
}
