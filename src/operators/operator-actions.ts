/**
 * What the operator audit records: every change made through the admin routes or the operator
 * command. Kept as one list so the docs, the API document's enum and the `action` filter agree.
 */
export const OPERATOR_AUDIT_ACTIONS = [
  'game.created',
  'game.config_updated',
  'api_key.minted',
  'api_key.revoked',
  'operator.created',
  'operator.role_changed',
  'operator.deleted',
  'identity.linked',
  'user.erased',
  'user.exported',
  'erasures.applied',
  'ledger.applied',
  'member.kicked',
  'member.role_assigned',
  'member.timed_out',
  'member.timeout_lifted',
  'group.ban_added',
  'group.ban_removed',
  'game.ban_added',
  'game.ban_removed',
  'join_request.approved',
  'join_request.declined',
  'group.updated',
  'group.deleted',
  'group.restored',
  'report.resolved',
  'names.scanned',
] as const;

export type OperatorAuditAction = (typeof OPERATOR_AUDIT_ACTIONS)[number];
