export interface InvitationRow {
  id: string;
  groupId: string;
  code: string;
  roleId: string | null;
  targetUserId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  usedAt: Date | null;
  usedBy: string | null;
  maxUses: number;
  uses: number;
}

export const INVITATION_COLUMNS = `i.id, i.group_id AS "groupId", i.code, i.role_id AS "roleId",
  i.target_user_id AS "targetUserId", i.created_at AS "createdAt", i.expires_at AS "expiresAt",
  i.used_at AS "usedAt", i.used_by AS "usedBy", i.max_uses AS "maxUses", i.uses`;
