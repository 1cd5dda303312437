import { isoNN } from '../common/time';
import type { RoleDto } from './dto/role.dto';
import type { RoleRow } from './role-row';

export function toRoleDto(r: RoleRow): RoleDto {
  return {
    id: r.id,
    groupId: r.groupId,
    name: r.name,
    priority: r.priority,
    color: r.color,
    isDefault: r.isDefault,
    permissions: r.permissions,
    createdAt: isoNN(r.createdAt),
  };
}
