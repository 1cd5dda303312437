import { iso, isoNN, isoOfEpochMs } from '../common/time';
import type { MemberDto } from './dto/member.dto';
import type { MemberRow } from './member-row';

/** When a timeout that has not ended yet ends (EXTENSIONS X10); null for none or one that ended. */
export const timeoutInForce = (until: Date | null, now = Date.now()): Date | null => (until !== null && until.getTime() > now ? until : null);

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
    timedOutUntil: iso(timeoutInForce(row.timedOutUntil)),
  };
}
