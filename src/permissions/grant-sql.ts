/**
 * The SQL side of the resolution (permission-resolver.ts), for the read that filters in the
 * database: the member list's `permission` filter. The property test
 * (test/e2e/permission-agreement.e2e-spec.ts) holds it to the resolver's answers.
 */

/** A grant row `alias` (member_roles, member_permission_overrides) in force at the snapshot's now(). */
export const liveGrant = (alias: string): string => `(${alias}.expires_at IS NULL OR ${alias}.expires_at > now())`;

/**
 * Member `alias` has no timeout in force at the snapshot's now() (EXTENSIONS X10): the lists add
 * it when the game's config denies their key to timed-out members, as the resolver puts a timeout
 * before every grant.
 */
export const notTimedOut = (alias: string): string => `(${alias}.timed_out_until IS NULL OR ${alias}.timed_out_until <= now())`;

/**
 * The members of group `groupId` allowed `permission` now, in member-list order (joinedAt, id,
 * descending), after the keyset `after` (two parameter refs, or null), at most `limit`: rows
 * (member_id, joined). Each grant row carries its member's place in that order (migration
 * GrantHolderOrder), so this is a merge of ordered index ranges, one per role granting the key
 * and one of the overrides allowing it, each stopped at `limit` rows that hold: as many probes as
 * the page has rows, not as the group has members. A member's live override decides when it has
 * one (so a role's holder is left out when an override denies the key), else any live assignment
 * of a granting role; only active members hold keys, and a timeout in force holds none of the keys
 * the game's config lists (`timeoutDenies`), as in the resolver.
 */
export function holdersSql(q: { groupId: string; permission: string; limit: string; after: [string, string] | null; timeoutDenies: boolean }): string {
  const holds = (alias: string) =>
    `EXISTS (SELECT 1 FROM members m WHERE m.id = ${alias}.member_id AND m.status = 'active'${q.timeoutDenies ? ` AND ${notTimedOut('m')}` : ''})`;
  const after = (alias: string) => (q.after ? ` AND (${alias}.member_joined_at, ${alias}.member_id) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)` : '');
  return `SELECT DISTINCT h.member_id, h.joined FROM (
      SELECT x.member_id, x.joined FROM unnest(${grantingRolesSql(q.groupId, q.permission)}) gr(id) CROSS JOIN LATERAL (
        SELECT mr.member_id, mr.member_joined_at AS joined FROM member_roles mr
        WHERE mr.role_id = gr.id AND ${liveGrant('mr')}${after('mr')} AND ${holds('mr')}
          AND NOT EXISTS (SELECT 1 FROM member_permission_overrides d
                          WHERE d.member_id = mr.member_id AND d.permission = ${q.permission} AND NOT d.allowed AND ${liveGrant('d')})
        ORDER BY mr.member_joined_at DESC, mr.member_id DESC LIMIT ${q.limit}) x
      UNION ALL
      (SELECT o.member_id, o.member_joined_at FROM member_permission_overrides o
       WHERE o.group_id = ${q.groupId} AND o.permission = ${q.permission} AND o.allowed AND ${liveGrant('o')}${after('o')} AND ${holds('o')}
       ORDER BY o.member_joined_at DESC, o.member_id DESC LIMIT ${q.limit})
    ) h ORDER BY h.joined DESC, h.member_id DESC LIMIT ${q.limit}`;
}

/** The ids of the roles of group `groupId` that grant `permission`, as a uuid[]. */
const grantingRolesSql = (groupId: string, permission: string): string =>
  `ARRAY(SELECT rp.role_id FROM roles r JOIN role_permissions rp ON rp.role_id = r.id AND rp.permission = ${permission} WHERE r.group_id = ${groupId})`;

/**
 * An instant inside a row built as JSON, as epoch milliseconds (a bigint); made a wire timestamp by
 * isoOfEpochMs (common/time.ts). Not formatted in SQL: a format's colons would read as variables
 * to pgbench, which replays the service's statements in the bench. `date_part` computes in double
 * precision where `extract` computes in numeric, about a seventh of a page of groups' statement
 * (four instants a row); rounded to the nearest integer it is exact for every timestamptz(3) from
 * year 1 to 9999 (test/e2e/epoch-ms-sql.e2e-spec.ts), and every column read so is one.
 */
export const epochMsSql = (expr: string): string => `(date_part('epoch', ${expr}) * 1000)::int8`;
