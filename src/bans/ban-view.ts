import { iso, isoNN } from '../common/time';
import type { BanHistoryRow, BanRow } from './ban-rows';
import type { BanDto, BanHistoryEntryDto } from './dto/ban.dto';

export function toBanDto(b: BanRow): BanDto {
  return {
    id: b.id,
    gameId: b.gameId,
    userId: b.userId,
    bannedAt: isoNN(b.bannedAt),
    expiresAt: iso(b.expiresAt),
    reason: b.reason,
    bannedBy: b.bannedBy,
  };
}

export function toHistoryDto(h: BanHistoryRow): BanHistoryEntryDto {
  return {
    id: h.id,
    gameId: h.gameId,
    userId: h.userId,
    scope: h.scope,
    groupId: h.groupId,
    kind: h.kind,
    reason: h.reason,
    expiresAt: iso(h.expiresAt),
    eventAt: isoNN(h.eventAt),
    actorUserId: h.actorUserId,
  };
}
