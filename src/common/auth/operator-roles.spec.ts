import { isOperatorRole, OPERATOR_ROLES, roleAllows } from './operator-roles';

describe('operator roles', () => {
  it.each([
    ['viewer', 'viewer', true],
    ['viewer', 'moderator', false],
    ['moderator', 'viewer', true],
    ['moderator', 'admin', false],
    ['admin', 'moderator', true],
    ['admin', 'owner', false],
    ['owner', 'admin', true],
    ['owner', 'owner', true],
  ] as const)('%s reaches %s: %s', (role, needed, expected) => {
    expect(roleAllows(role, needed)).toBe(expected);
  });

  it('knows the four roles and nothing else', () => {
    expect(OPERATOR_ROLES.every(isOperatorRole)).toBe(true);
    expect(['', 'root', 'Owner', 'superuser', null, 3].some(isOperatorRole)).toBe(false);
  });
});
