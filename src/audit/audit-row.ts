export interface AuditRow {
  id: string;
  gameId: string;
  groupId: string | null;
  actorUserId: string | null;
  action: string;
  targetId: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
}

export const AUDIT_COLUMNS = `a.id, a.game_id AS "gameId", a.group_id AS "groupId", coalesce(a.actor_user_id::text, a.actor_pseudonym) AS "actorUserId",
  a.action, a.target_id AS "targetId", a.payload, a.created_at AS "createdAt"`;
