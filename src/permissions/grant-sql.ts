/**
 * The SQL side of the resolution (permission-resolver.ts), for the reads that filter in the
 * database: the member list's `permission` filter and a user's groups allowed a key. The property
 * test (test/e2e/permission-agreement.e2e-spec.ts) holds them to the resolver's answers.
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
 * Whether member `memberId` (already known active) is allowed `permission`: its live override
 * decides if it has one, else any live assignment of a role that `grants` (a condition on `mr`,
 * see rolesIn and roleGrants). The role's priority only names `viaRoleId`, never whether the key
 * is allowed. Both parts are scalar subqueries with LIMIT so that each stays a probe of the
 * member's own rows: an EXISTS here is planned as a hash of every live assignment of every group.
 */
export function allowedSql(memberId: string, permission: string, grants: string): string {
  return `COALESCE(
    (SELECT o.allowed FROM member_permission_overrides o WHERE o.member_id = ${memberId} AND o.permission = ${permission} AND ${liveGrant('o')}),
    (SELECT true FROM member_roles mr WHERE mr.member_id = ${memberId} AND ${grants} AND ${liveGrant('mr')} LIMIT 1),
    false)`;
}

/**
 * The ids of the roles of group `groupId` that grant `permission`, as a uuid[]: computed once,
 * so that walking a group's members costs a probe of each member's assignments and no more.
 */
export const grantingRolesSql = (groupId: string, permission: string): string =>
  `ARRAY(SELECT rp.role_id FROM roles r JOIN role_permissions rp ON rp.role_id = r.id AND rp.permission = ${permission} WHERE r.group_id = ${groupId})`;

/** For allowedSql: the assignment's role is one of `roleIds` (a uuid[], see grantingRolesSql). */
export const rolesIn = (roleIds: string): string => `mr.role_id = ANY (${roleIds})`;

/** For allowedSql, across groups: the assignment's role grants `permission`. */
export const roleGrants = (permission: string): string =>
  `EXISTS (SELECT 1 FROM role_permissions rp WHERE rp.role_id = mr.role_id AND rp.permission = ${permission})`;

/**
 * An instant inside a row built as JSON, as epoch milliseconds (exact for timestamptz(3)); made a
 * wire timestamp by isoOfEpochMs. Not formatted in SQL: a format's colons would read as variables
 * to pgbench, which replays the service's statements in the bench.
 */
export const epochMsSql = (expr: string): string => `floor(extract(epoch FROM ${expr}) * 1000)`;

/** The wire form (DECISIONS §18) of an instant epochMsSql gave. */
export const isoOfEpochMs = (ms: number | string | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());
