export interface RoleRow {
  id: string;
  groupId: string;
  name: string;
  priority: number;
  color: string | null;
  isDefault: boolean;
  /** Granted keys in byte order. */
  permissions: string[];
  createdAt: Date;
}

export const ROLE_COLUMNS = `r.id, r.group_id AS "groupId", r.name, r.priority, r.color, r.is_default AS "isDefault",
  ARRAY(SELECT rp.permission FROM role_permissions rp WHERE rp.role_id = r.id ORDER BY rp.permission COLLATE "C") AS permissions,
  r.created_at AS "createdAt"`;
