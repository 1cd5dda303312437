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

/**
 * Who made a change: a named operator, the root token (id null, name `root`), or the operator
 * command (id null, name `cli`).
 */
export interface ActingOperator {
  id: string | null;
  name: string;
  role: OperatorRole;
  /** Where the operator command ran: it holds the database URL, not a token, so the audit names the account and machine. */
  origin?: { osUser: string; host: string };
}

export const ROOT_OPERATOR: ActingOperator = Object.freeze({ id: null, name: 'root', role: 'owner' });
