/**
 * The SQL side of the resolution (permission-resolver.ts), for the reads that filter in the
 * database: the member list's `permission` filter and a user's groups allowed a key. The property
 * test (test/e2e/permission-agreement.e2e-spec.ts) holds them to the resolver's answers.
 */

/** A grant row `alias` (member_roles, member_permission_overrides) in force at the snapshot's now(). */
export const liveGrant = (alias: string): string => `(${alias}.expires_at IS NULL OR ${alias}.expires_at > now())`;

/**
 * Whether member `memberId` (already known active) is allowed `permission`: its live override
 * decides if it has one, else any live role assignment that grants the key. The role's priority
 * only names `viaRoleId`, never whether the key is allowed.
 */
export function allowedSql(memberId: string, permission: string): string {
  return `COALESCE(
    (SELECT o.allowed FROM member_permission_overrides o WHERE o.member_id = ${memberId} AND o.permission = ${permission} AND ${liveGrant('o')}),
    EXISTS (SELECT 1 FROM member_roles mr JOIN role_permissions rp ON rp.role_id = mr.role_id AND rp.permission = ${permission}
            WHERE mr.member_id = ${memberId} AND ${liveGrant('mr')}))`;
}

/** An instant as the wire writes it (DECISIONS §18), made in SQL for rows built as JSON. */
export const isoSql = (expr: string): string => `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
