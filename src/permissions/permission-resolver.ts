/** SPEC §2 Permission check result (EXTENSIONS X10 adds `timeout`). `viaRoleId` only when the source is a role. */
export type PermissionCheckResult =
  | { allowed: false; source: 'timeout' }
  | { allowed: boolean; source: 'none' | 'default' | 'override' }
  | { allowed: true; source: 'role'; viaRoleId: string };

/**
 * What the database knows about one (member, permission) pair, grants already expired left out
 * (every read compares expires_at with its snapshot's now(), see grant-sql.ts).
 */
export interface PermissionFacts {
  /** An active member row exists for the user in the group. */
  activeMember: boolean;
  /** When the member's timeout ends, if one is in force and the game's config denies the key to timed-out members (EXTENSIONS X10). */
  timedOutUntil?: Date | null;
  /** The member's override for the key, if any. */
  override: boolean | null;
  /** The highest-priority granting role (priority desc, id desc), if any. */
  grantingRoleId: string | null;
  /** When the override ends (null: permanent). */
  overrideExpiresAt?: Date | null;
  /** When the assignment of the granting role ends (null: permanent). */
  grantingRoleExpiresAt?: Date | null;
}

/** An answer and when the grant that decides it expires: until then nothing but a commit can change it. */
export interface Resolution {
  result: PermissionCheckResult;
  /** Null when no expiring grant decides the answer. */
  expiresAt: Date | null;
}

/**
 * SPEC §4 Permission check, in order: none (no identity, no member row or not active), then a
 * timeout that denies the key (EXTENSIONS X10, over every grant), then an override (wins both
 * ways), then a granting role, then the default (denied). The one place that decides: the single
 * check, the batch and the effective set all come through here.
 */
export function resolveGrant(f: PermissionFacts): Resolution {
  if (!f.activeMember) return { result: { allowed: false, source: 'none' }, expiresAt: null };
  if (f.timedOutUntil) return { result: { allowed: false, source: 'timeout' }, expiresAt: f.timedOutUntil };
  if (f.override !== null) return { result: { allowed: f.override, source: 'override' }, expiresAt: f.overrideExpiresAt ?? null };
  if (f.grantingRoleId !== null) {
    // The next granting role (or the default) takes over when this assignment ends.
    return { result: { allowed: true, source: 'role', viaRoleId: f.grantingRoleId }, expiresAt: f.grantingRoleExpiresAt ?? null };
  }
  return { result: { allowed: false, source: 'default' }, expiresAt: null };
}

export function resolvePermission(f: PermissionFacts): PermissionCheckResult {
  return resolveGrant(f).result;
}
