import { iso, isoNN } from '../common/time';
import type { MemberDto } from './dto/member.dto';
import type { MemberRow } from './member-row';

/** The wire Member (SPEC §2); `bannedUntil` is meaningful only while banned. */
export function toMemberDto(row: MemberRow): MemberDto {
  return {
    id: row.id,
    groupId: row.groupId,
    userId: row.userId,
    status: row.status,
    roles: row.roleGrants.map((g) => g.roleId),
    roleGrants: row.roleGrants,
    metadata: row.metadata,
    notesPublic: row.notesPublic,
    notesPrivate: row.notesPrivate,
    joinedAt: isoNN(row.joinedAt),
    leftAt: iso(row.leftAt),
    bannedUntil: row.status === 'banned' ? iso(row.bannedUntil) : null,
  };
}
