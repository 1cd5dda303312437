/**
 * What an operator may do on the admin routes, each role including the ones before it: `viewer`
 * reads; `moderator` also acts on players and groups (bans, kicks, join requests, delete and
 * restore, erasure); `admin` also manages games, keys, config and webhooks; `owner` also manages
 * operators. The root token (SVC_ADMIN_TOKEN) may do everything.
 */
export const OPERATOR_ROLES = ['viewer', 'moderator', 'admin', 'owner'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value);
}

/** Whether `role` reaches `needed`. */
export function roleAllows(role: OperatorRole, needed: OperatorRole): boolean {
  return OPERATOR_ROLES.indexOf(role) >= OPERATOR_ROLES.indexOf(needed);
}

/** Who made an admin request: a named operator, or the root token (id null, name `root`). */
export interface ActingOperator {
  id: string | null;
  name: string;
  role: OperatorRole;
}

export const ROOT_OPERATOR: ActingOperator = Object.freeze({ id: null, name: 'root', role: 'owner' });
