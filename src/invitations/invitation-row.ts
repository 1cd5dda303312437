export interface InvitationRow {
  id: string;
  groupId: string;
  code: string;
  roleId: string | null;
  targetUserId: string | null;
  /** EXTENSIONS X6: the external id given as the inviter, or null. */
  invitedByUserId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  usedAt: Date | null;
  usedBy: string | null;
  maxUses: number;
  uses: number;
}

/** An invitation with the group summary the preview and the inbox show (EXTENSIONS X6). */
export type InvitationRowWithGroup = InvitationRow & { groupName: string; groupKind: string };

export const INVITATION_COLUMNS = `i.id, i.group_id AS "groupId", i.code, i.role_id AS "roleId",
  i.target_user_id AS "targetUserId", i.invited_by_user_id AS "invitedByUserId", i.created_at AS "createdAt",
  i.expires_at AS "expiresAt", i.used_at AS "usedAt", i.used_by AS "usedBy", i.max_uses AS "maxUses", i.uses`;

/** The group summary beside INVITATION_COLUMNS, from the group joined as `g`. */
export const INVITATION_GROUP_COLUMNS = `g.name AS "groupName", g.kind AS "groupKind"`;
