/** Shapes the e2e tests assert on: id and timestamp patterns, the Member and Invitation bodies, audit entry rows. */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const EVENT_ID = /^[0-9a-f]{24}$/;

export interface Member {
  id: string;
  groupId: string;
  userId: string;
  status: string;
  roles: string[];
  metadata: Record<string, unknown>;
  notesPublic: string | null;
  notesPrivate: string | null;
  joinedAt: string;
  leftAt: string | null;
  bannedUntil: string | null;
}

export interface Invitation {
  id: string;
  groupId: string;
  code: string;
  roleId: string | null;
  targetUserId: string | null;
  invitedByUserId: string | null;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string | null;
  usedAt: string | null;
  usedBy: string | null;
  maxUses: number;
  uses: number;
}

/** An audit entry's row as SELECT * returns it (from the journal's audit entries, as from the old audit_entries). */
export interface AuditDbRow {
  id: string;
  game_id: string;
  group_id: string | null;
  actor_user_id: string | null;
  action: string;
  target_id: string | null;
  payload: Record<string, unknown>;
}
