import type { PermissionFacts } from './permission-resolver';

/** An instant as epoch milliseconds; null: never. */
type Until = number | null;

/** A live role assignment of the member, with what the resolver needs of the role. */
export interface ProfileRole {
  id: string;
  priority: number;
  expiresAt: Until;
  permissions: ReadonlySet<string>;
}

/**
 * Everything that decides any key for one user in one group, as one snapshot read it: whether
 * the user is an active member, the live overrides and the live role assignments, the latter
 * sorted as the resolution walks them (priority desc, id desc). Caching this instead of single
 * answers lets every key of a cached member, asked for the first time, resolve in memory.
 */
export interface GrantProfile {
  activeMember: boolean;
  /** When the member's timeout ends (EXTENSIONS X10): it denies only the keys the game's config lists, so it is kept apart from the grants. */
  timedOutUntil: Until;
  overrides: ReadonlyMap<string, { allowed: boolean; expiresAt: Until }>;
  roles: readonly ProfileRole[];
}

export const NOT_A_MEMBER: GrantProfile = { activeMember: false, timedOutUntil: null, overrides: new Map(), roles: [] };

const live = (expiresAt: Until, now: number) => expiresAt === null || expiresAt > now;
const dateOf = (at: Until) => (at === null ? null : new Date(at));

/** Whether a timeout of the profile is in force at `now`: only then does the game's list of denied keys matter. */
export const timedOutAt = (p: GrantProfile, now: number): boolean => p.timedOutUntil !== null && p.timedOutUntil > now;

/**
 * The resolver's facts for `permission` at `now`: grants ending at or before `now` are left out,
 * as the SQL leaves out those with `expires_at <= now()`, so a cached profile is exact at the
 * instant of an expiry; so is a timeout, which denies the keys of `timeoutDenied` (the game's
 * `moderation.timeoutDeniedPermissions`) until its end.
 */
export function profileFacts(p: GrantProfile, permission: string, now: number, timeoutDenied: readonly string[]): PermissionFacts {
  const o = p.overrides.get(permission);
  const override = o && live(o.expiresAt, now) ? o : null;
  const role = p.roles.find((r) => r.permissions.has(permission) && live(r.expiresAt, now)) ?? null;
  return {
    activeMember: p.activeMember,
    timedOutUntil: p.timedOutUntil !== null && p.timedOutUntil > now && timeoutDenied.includes(permission) ? new Date(p.timedOutUntil) : null,
    override: override?.allowed ?? null,
    overrideExpiresAt: dateOf(override?.expiresAt ?? null),
    grantingRoleId: role?.id ?? null,
    grantingRoleExpiresAt: dateOf(role?.expiresAt ?? null),
  };
}

/** Every key a grant in force at `now` names (an override's or a role's): the effective set's candidates. */
export function profileKeys(p: GrantProfile, now: number): Set<string> {
  const keys = new Set<string>();
  for (const [k, o] of p.overrides) if (live(o.expiresAt, now)) keys.add(k);
  for (const r of p.roles) if (live(r.expiresAt, now)) for (const k of r.permissions) keys.add(k);
  return keys;
}

/** The earliest expiry among the profile's grants and its timeout (null: none ends): past it the profile must not be served. */
export function profileUntil(p: GrantProfile): Until {
  let until: Until = null;
  const take = (at: Until) => {
    if (at !== null && (until === null || at < until)) until = at;
  };
  take(p.timedOutUntil);
  for (const o of p.overrides.values()) take(o.expiresAt);
  for (const r of p.roles) take(r.expiresAt);
  return until;
}

/**
 * What a profile weighs in the cache's memory bound, in units of about 100 bytes of heap: measured
 * (node --expose-gc, 100,000 profiles), a profile with no grant takes about 1.1 KB with its cache
 * entry, key and group map, and one role of two keys adds about 700 bytes. Counting keys alone let
 * a million empty profiles, a gigabyte, pass for a million units.
 */
export function profileWeight(p: GrantProfile): number {
  let w = PROFILE_BASE_WEIGHT + 2 * p.overrides.size;
  for (const r of p.roles) w += ROLE_WEIGHT + 2 * r.permissions.size;
  return w;
}

export const PROFILE_BASE_WEIGHT = 10;
const ROLE_WEIGHT = 3;

/** The resolution's order of roles: priority desc, then id desc (uuids in lowercase hex compare as Postgres orders them). */
export const byResolutionOrder = (a: ProfileRole, b: ProfileRole): number =>
  b.priority - a.priority || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
