import fc from 'fast-check';
import { byResolutionOrder, NOT_A_MEMBER, PROFILE_BASE_WEIGHT, profileFacts, profileKeys, profileUntil, profileWeight, type GrantProfile } from './grant-profile';
import { resolveGrant, type PermissionFacts } from './permission-resolver';

/**
 * A cached profile must answer every key as the facts SQL answered them (grant-sql.ts, the
 * resolver's order): random grants, read two ways at random instants, through the one resolveGrant.
 */
const KEYS = ['k.a', 'k.b', 'k.c', 'k.d'];
const NOW = 1_800_000_000_000;

interface Grants {
  active: boolean;
  timedOutUntil: number | null;
  overrides: { key: string; allowed: boolean; expiresAt: number | null }[];
  roles: { id: string; priority: number; expiresAt: number | null; keys: string[] }[];
}

// Expiries around NOW, on it included: a grant is in force strictly before its expiry.
const expiry = fc.option(fc.integer({ min: NOW - 2, max: NOW + 2 }), { nil: null });
// Few distinct hex digits so that ties on priority meet ids sharing prefixes.
const uuid = fc.stringMatching(/^[0-9a-f]{8}-0000-7000-8000-0000000000[0-9a-f]{2}$/);
// The game's keys denied to a timed-out member (EXTENSIONS X10): some of KEYS, never 'k.none'.
const DENIED = ['k.a', 'k.c'];
const grantsArb: fc.Arbitrary<Grants> = fc.record({
  active: fc.boolean(),
  timedOutUntil: expiry,
  overrides: fc.uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), allowed: fc.boolean(), expiresAt: expiry }), { selector: (o) => o.key }),
  roles: fc.uniqueArray(
    fc.record({ id: uuid, priority: fc.integer({ min: -2, max: 2 }), expiresAt: expiry, keys: fc.subarray(KEYS) }),
    { selector: (r) => r.id, maxLength: 5 },
  ),
});

const inForce = (at: number | null, now: number) => at === null || at > now;

/** The facts as the SQL reads them: live rows only, the top role by priority desc then uuid bytes desc. */
function sqlFacts(g: Grants, key: string, now: number): PermissionFacts {
  if (!g.active) return { activeMember: false, override: null, grantingRoleId: null };
  const timedOut = g.timedOutUntil !== null && g.timedOutUntil > now && DENIED.includes(key);
  const o = g.overrides.find((x) => x.key === key && inForce(x.expiresAt, now));
  const bytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
  const [role] = g.roles
    .filter((r) => r.keys.includes(key) && inForce(r.expiresAt, now))
    .sort((a, b) => b.priority - a.priority || Buffer.compare(bytes(b.id), bytes(a.id)));
  return {
    activeMember: true,
    timedOutUntil: timedOut && g.timedOutUntil !== null ? new Date(g.timedOutUntil) : null,
    override: o?.allowed ?? null,
    overrideExpiresAt: o?.expiresAt == null ? null : new Date(o.expiresAt),
    grantingRoleId: role?.id ?? null,
    grantingRoleExpiresAt: role?.expiresAt == null ? null : new Date(role.expiresAt),
  };
}

/** The profile the repository builds of those rows (every row, the resolution's order). */
function profileOf(g: Grants): GrantProfile {
  if (!g.active) return NOT_A_MEMBER;
  return {
    activeMember: true,
    timedOutUntil: g.timedOutUntil,
    overrides: new Map(g.overrides.map((o) => [o.key, { allowed: o.allowed, expiresAt: o.expiresAt }])),
    roles: g.roles.map((r) => ({ id: r.id, priority: r.priority, expiresAt: r.expiresAt, permissions: new Set(r.keys) })).sort(byResolutionOrder),
  };
}

describe('grant profile', () => {
  it('answers every key at every instant as the facts SQL would, through resolveGrant', () => {
    fc.assert(
      fc.property(grantsArb, fc.constantFrom(...KEYS, 'k.none'), fc.integer({ min: NOW - 3, max: NOW + 3 }), (g, key, now) => {
        expect(resolveGrant(profileFacts(profileOf(g), key, now, DENIED))).toEqual(resolveGrant(sqlFacts(g, key, now)));
      }),
      { numRuns: 2000, seed: 45 },
    );
  });

  it('names exactly the keys of the grants in force (the effective set’s candidates)', () => {
    fc.assert(
      fc.property(grantsArb, fc.integer({ min: NOW - 3, max: NOW + 3 }), (g, now) => {
        const expected = !g.active
          ? []
          : [...new Set([...g.overrides.filter((o) => inForce(o.expiresAt, now)).map((o) => o.key), ...g.roles.filter((r) => inForce(r.expiresAt, now)).flatMap((r) => r.keys)])];
        expect([...profileKeys(profileOf(g), now)].sort()).toEqual(expected.sort());
      }),
      { numRuns: 1000, seed: 45 },
    );
  });

  it('lives no longer than its first expiry', () => {
    fc.assert(
      fc.property(grantsArb, (g) => {
        const all = [...g.overrides, ...g.roles].map((x) => x.expiresAt).concat(g.timedOutUntil).filter((x): x is number => x !== null);
        expect(profileUntil(profileOf(g))).toBe(g.active && all.length ? Math.min(...all) : null);
      }),
      { seed: 45 },
    );
  });

  it('is exact at the instant of an expiry: the grant holds until just before, not at it', () => {
    const role = { id: '00000000-0000-7000-8000-000000000001', priority: 1, expiresAt: NOW, permissions: new Set(['k.a']) };
    const p: GrantProfile = { activeMember: true, timedOutUntil: null, overrides: new Map(), roles: [role] };
    expect(resolveGrant(profileFacts(p, 'k.a', NOW - 1, [])).result).toEqual({ allowed: true, source: 'role', viaRoleId: role.id });
    expect(resolveGrant(profileFacts(p, 'k.a', NOW, [])).result).toEqual({ allowed: false, source: 'default' });
  });

  it('denies the listed keys while a timeout is in force, over an allowing override, and no others; from its end the grants decide again', () => {
    const role = { id: '00000000-0000-7000-8000-000000000001', priority: 1, expiresAt: null, permissions: new Set(['k.a', 'k.b']) };
    const p: GrantProfile = { activeMember: true, timedOutUntil: NOW, overrides: new Map([['k.c', { allowed: true, expiresAt: null }]]), roles: [role] };
    const at = (key: string, now: number) => resolveGrant(profileFacts(p, key, now, DENIED));
    expect(at('k.a', NOW - 1)).toEqual({ result: { allowed: false, source: 'timeout' }, expiresAt: new Date(NOW) });
    expect(at('k.c', NOW - 1).result).toEqual({ allowed: false, source: 'timeout' });
    expect(at('k.b', NOW - 1).result).toEqual({ allowed: true, source: 'role', viaRoleId: role.id });
    expect(at('k.a', NOW).result).toEqual({ allowed: true, source: 'role', viaRoleId: role.id });
    expect(at('k.c', NOW).result).toEqual({ allowed: true, source: 'override' });
    expect(resolveGrant(profileFacts(p, 'k.a', NOW - 1, [])).result).toEqual({ allowed: true, source: 'role', viaRoleId: role.id });
  });

  it('weighs its fixed parts as well as its keys: a profile without grants is not free', () => {
    expect(profileWeight(NOT_A_MEMBER)).toBe(PROFILE_BASE_WEIGHT);
    const role = { id: 'r', priority: 1, expiresAt: null, permissions: new Set(['k.a', 'k.b']) };
    const withRole: GrantProfile = { activeMember: true, timedOutUntil: null, overrides: new Map(), roles: [role] };
    expect(profileWeight(withRole)).toBe(PROFILE_BASE_WEIGHT + 7);
    const withOverride: GrantProfile = { ...withRole, overrides: new Map([['k.c', { allowed: true, expiresAt: null }]]) };
    expect(profileWeight(withOverride)).toBe(PROFILE_BASE_WEIGHT + 9);
  });
});
