import { resolveGrant, resolvePermission, type PermissionCheckResult, type PermissionFacts } from './permission-resolver';

/**
 * SPEC §4 Permission check resolution order, DECISIONS §1: (1) none unless the member is active,
 * (2) an override wins over roles both ways, (3) a granting role, (4) the default (denied).
 * `viaRoleId` appears only when the source is a role (SPEC §2 Permission check result).
 */
const ROLE = '01900000-0000-7000-8000-00000000000a';

const NONE: PermissionCheckResult = { allowed: false, source: 'none' };
const DEFAULT: PermissionCheckResult = { allowed: false, source: 'default' };
const OVERRIDE_ALLOW: PermissionCheckResult = { allowed: true, source: 'override' };
const OVERRIDE_DENY: PermissionCheckResult = { allowed: false, source: 'override' };
const VIA_ROLE: PermissionCheckResult = { allowed: true, source: 'role', viaRoleId: ROLE };

describe('resolvePermission', () => {
  it.each<[string, PermissionFacts, PermissionCheckResult]>([
    // step 1: no member row (or no identity) at all
    ['no member row', { activeMember: false, override: null, grantingRoleId: null }, NONE],
    // step 1: a member that is not active, whatever it still holds
    ['inactive member with an allowing override', { activeMember: false, override: true, grantingRoleId: null }, NONE],
    ['inactive member with a denying override', { activeMember: false, override: false, grantingRoleId: null }, NONE],
    ['inactive member with a granting role', { activeMember: false, override: null, grantingRoleId: ROLE }, NONE],
    ['inactive member with an override and a role', { activeMember: false, override: true, grantingRoleId: ROLE }, NONE],
    // step 2: the override wins over roles, in both directions
    ['active, override false beats a granting role', { activeMember: true, override: false, grantingRoleId: ROLE }, OVERRIDE_DENY],
    ['active, override true beats the default', { activeMember: true, override: true, grantingRoleId: null }, OVERRIDE_ALLOW],
    ['active, override true with a granting role', { activeMember: true, override: true, grantingRoleId: ROLE }, OVERRIDE_ALLOW],
    ['active, override false without any role', { activeMember: true, override: false, grantingRoleId: null }, OVERRIDE_DENY],
    // step 3: a granting role
    ['active, granting role, no override', { activeMember: true, override: null, grantingRoleId: ROLE }, VIA_ROLE],
    // step 4: the default
    ['active, nothing applies', { activeMember: true, override: null, grantingRoleId: null }, DEFAULT],
  ])('%s', (_name, facts, expected) => {
    const result = resolvePermission(facts);
    // toStrictEqual: a `viaRoleId: undefined` key on a non-role answer would fail here.
    expect(result).toStrictEqual(expected);
    if (result.source !== 'role') expect('viaRoleId' in result).toBe(false);
  });

  it('names exactly the granting role it was given', () => {
    const other = '01900000-0000-7000-8000-0000000000ff';
    expect(resolvePermission({ activeMember: true, override: null, grantingRoleId: other })).toStrictEqual({
      allowed: true,
      source: 'role',
      viaRoleId: other,
    });
  });
});

describe('resolveGrant: when the answer may change by itself', () => {
  const soon = new Date('2030-01-01T00:00:00.000Z');
  const later = new Date('2030-06-01T00:00:00.000Z');

  it('is the expiry of the override when the override decides', () => {
    expect(resolveGrant({ activeMember: true, override: false, overrideExpiresAt: soon, grantingRoleId: ROLE, grantingRoleExpiresAt: later })).toEqual({ result: OVERRIDE_DENY, expiresAt: soon });
  });

  it('is the expiry of the granting assignment when a role decides', () => {
    expect(resolveGrant({ activeMember: true, override: null, grantingRoleId: ROLE, grantingRoleExpiresAt: later })).toEqual({ result: VIA_ROLE, expiresAt: later });
  });

  it('is none for the default, for a member who is not active, and for permanent grants', () => {
    expect(resolveGrant({ activeMember: true, override: null, grantingRoleId: null }).expiresAt).toBeNull();
    expect(resolveGrant({ activeMember: false, override: true, overrideExpiresAt: soon, grantingRoleId: null }).expiresAt).toBeNull();
    expect(resolveGrant({ activeMember: true, override: true, overrideExpiresAt: null, grantingRoleId: null }).expiresAt).toBeNull();
  });
});
