/**
 * The closed list of audit actions (SPEC §2 Audit entry). The `actions` filters of the audit
 * routes accept exactly these values; anything else is 400.
 */
export const AUDIT_ACTIONS = [
  'group.created',
  'group.updated',
  'group.deleted',
  'group.restored',
  'group.parent.changed',
  'group.owner_changed',
  'member.joined',
  'member.invited',
  'member.left',
  'member.kicked',
  'member.banned',
  'member.unbanned',
  'member.updated',
  'member.timed_out',
  'member.timeout_lifted',
  'member.role.assigned',
  'member.role.removed',
  'role.created',
  'role.updated',
  'role.deleted',
  'permission.granted',
  'permission.revoked',
  'permission.override.set',
  'permission.override.cleared',
  'invitation.revoked',
  'join_request.created',
  'join_request.approved',
  'join_request.declined',
  'join_request.cancelled',
  'game.user.banned',
  'game.user.unbanned',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'game.config.updated',
  'game.user.linked',
  'user.erased',
  'user.exported',
  'report.created',
  'report.resolved',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const KNOWN: ReadonlySet<string> = new Set(AUDIT_ACTIONS);

export const isAuditAction = (v: string): v is AuditAction => KNOWN.has(v);
