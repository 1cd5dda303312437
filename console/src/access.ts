import type { OperatorRole, Whoami } from './types';

/** The operator roles, each including the ones before it (the service's operator-roles.ts). */
export const ROLES: readonly OperatorRole[] = ['viewer', 'moderator', 'admin', 'owner'];

/**
 * Every change the console can make, with the admin operation it calls and the least role that
 * operation takes. The one place the console decides what to show: a control whose action is
 * above the operator's role is not drawn. The roles are the API document's `x-svc-operator-role`
 * (console/test/operators.spec.ts fails when one of them differs from it); the service refuses
 * anything above the role with 403 whatever the console shows.
 */
export const ACTIONS = {
  createGame: { role: 'admin', method: 'POST', path: '/v1/admin/games' },
  mintKey: { role: 'admin', method: 'POST', path: '/v1/admin/games/{gameId}/api-keys' },
  revokeKey: { role: 'admin', method: 'POST', path: '/v1/admin/games/{gameId}/api-keys/{keyId}/revoke' },
  eraseUser: { role: 'moderator', method: 'DELETE', path: '/v1/admin/games/{gameId}/users/{externalUserId}' },
  timeoutMember: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/timeout' },
  liftTimeout: { role: 'moderator', method: 'DELETE', path: '/v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/timeout' },
  assignRole: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/roles/{roleId}' },
  kickMember: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/groups/{groupId}/members/{userId}/kick' },
  banFromGroup: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/groups/{groupId}/bans' },
  unbanFromGroup: { role: 'moderator', method: 'DELETE', path: '/v1/admin/games/{gameId}/groups/{groupId}/bans/{userId}' },
  banFromGame: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/bans' },
  unbanFromGame: { role: 'moderator', method: 'DELETE', path: '/v1/admin/games/{gameId}/bans/{userId}' },
  approveJoinRequest: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/join-requests/{id}/approve' },
  declineJoinRequest: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/join-requests/{id}/decline' },
  deleteGroup: { role: 'moderator', method: 'DELETE', path: '/v1/admin/games/{gameId}/groups/{groupId}' },
  restoreGroup: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/groups/{groupId}/restore' },
  renameGroup: { role: 'moderator', method: 'PATCH', path: '/v1/admin/games/{gameId}/groups/{groupId}' },
  // Reads only, but it is the role that decides who is shown the name policy at all.
  testName: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/names/test' },
  // Reads only, but it is the role that decides who is shown the Reports page at all.
  listReports: { role: 'moderator', method: 'GET', path: '/v1/admin/games/{gameId}/reports/subjects' },
  resolveReport: { role: 'moderator', method: 'POST', path: '/v1/admin/games/{gameId}/reports/{id}/resolve' },
  updateGameConfig: { role: 'admin', method: 'PATCH', path: '/v1/admin/games/{gameId}/config' },
  listOperators: { role: 'owner', method: 'GET', path: '/v1/admin/operators' },
  addOperator: { role: 'owner', method: 'POST', path: '/v1/admin/operators' },
  changeOperatorRole: { role: 'owner', method: 'PATCH', path: '/v1/admin/operators/{id}' },
  deleteOperator: { role: 'owner', method: 'DELETE', path: '/v1/admin/operators/{id}' },
} as const satisfies Record<string, { role: OperatorRole; method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string }>;

export type Action = keyof typeof ACTIONS;

/** Who is signed in, as GET /v1/admin/whoami answered for this tab's token (null before it has). */
let current: Whoami | null = null;

export const operator = (): Whoami | null => current;
export const setOperator = (who: Whoami | null): void => {
  current = who;
};

/** Whether `role` reaches `needed`. */
export const reaches = (role: OperatorRole, needed: OperatorRole): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed);

/** Whether the signed-in operator may take `action`: nothing before whoami has answered. */
export const can = (action: Action): boolean => current !== null && reaches(current.role, ACTIONS[action].role);
