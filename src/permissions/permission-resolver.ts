/** SPEC §2 Permission check result. `viaRoleId` only when the source is a role. */
export type PermissionCheckResult =
  | { allowed: boolean; source: 'none' | 'default' | 'override' }
  | { allowed: true; source: 'role'; viaRoleId: string };

/** What the database knows about one (member, permission) pair. */
export interface PermissionFacts {
  /** An active member row exists for the user in the group. */
  activeMember: boolean;
  /** The member's override for the key, if any. */
  override: boolean | null;
  /** The highest-priority granting role (priority desc, id desc), if any. */
  grantingRoleId: string | null;
}

/**
 * SPEC §4 Permission check, in order: none (no identity, no member row or not active), then an
 * override (wins both ways), then a granting role, then the default (denied).
 */
export function resolvePermission(f: PermissionFacts): PermissionCheckResult {
  if (!f.activeMember) return { allowed: false, source: 'none' };
  if (f.override !== null) return { allowed: f.override, source: 'override' };
  if (f.grantingRoleId !== null) return { allowed: true, source: 'role', viaRoleId: f.grantingRoleId };
  return { allowed: false, source: 'default' };
}
