import { iso, isoNN } from '../common/time';
import { isoOfEpochMs } from '../permissions/grant-sql';
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
    roleGrants: row.roleGrants.map((g) => ({ roleId: g.roleId, expiresAt: isoOfEpochMs(g.expiresAt) })),
    metadata: row.metadata,
    notesPublic: row.notesPublic,
    notesPrivate: row.notesPrivate,
    joinedAt: isoNN(row.joinedAt),
    leftAt: iso(row.leftAt),
    bannedUntil: row.status === 'banned' ? iso(row.bannedUntil) : null,
  };
}
