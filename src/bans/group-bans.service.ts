import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { UnitOfWork } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import { alongsideOf } from '../groups/groups.repository';
import { IdentityService } from '../identity/identity.service';
import { JoinRequestCloser } from '../join-requests/join-request-closer';
import { recordOperatorAction } from '../operators/operator-audit';
import type { MemberDto } from '../members/dto/member.dto';
import { toMemberDto } from '../members/member-view';
import { GroupOwnership } from '../groups/group-ownership';
import { banAlongside, MembersRepository, unbanAlongside, alongsideMember, type BannedRow } from '../members/members.repository';
import type { MemberRow } from '../members/member-row';
import { PermissionCache } from '../permissions/permission-cache';
import { BansRepository, groupHistoryAlongside } from './bans.repository';
import type { GroupBanDto } from './dto/ban.dto';
import { notifiedGroup } from '../notifications/notification-data';

/** Per-group bans (DECISIONS §5): member status `banned` with `bannedUntil`, and their lifting. */
@Injectable()
export class GroupBansService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly identity: IdentityService,
    private readonly members: MembersRepository,
    private readonly bans: BansRepository,
    private readonly permissionCache: PermissionCache,
    private readonly joinRequests: JoinRequestCloser,
    private readonly ownership: GroupOwnership,
  ) {}

  /** `by`: the operator of an admin request, recorded in the operator audit; every ban set is a change, as for the game. */
  async ban(game: Pick<GameContext, 'gameId'>, groupId: string, dto: GroupBanDto, by?: ActingOperator): Promise<MemberDto> {
    return this.uow.runBatched(async (tx) => {
      const until = dto.expiresAt ? new Date(dto.expiresAt) : null;
      const reason = dto.reason ?? null;
      const history = { kind: 'set', reason, expiresAt: until, actorUserId: dto.actorUserId ?? null } as const;
      // A user the game knows is banned, and the ban's history written, in the lookup's statement.
      const locked = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, dto.userId, {
        lock: true,
        with: alongsideOf(banAlongside(dto.userId, until), groupHistoryAlongside(history)),
      });
      const { group } = locked;
      let svcUserId: string;
      let row: BannedRow;
      if (locked.svcUserId && locked.alongside) {
        svcUserId = locked.svcUserId;
        row = alongsideMember<BannedRow>(locked.alongside);
      } else {
        svcUserId = await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.userId);
        row = await this.members.ban(tx.manager, group.id, svcUserId, dto.userId, until);
        await this.bans.addHistory(tx.manager, { gameId: game.gameId, svcUserId, userId: dto.userId, scope: 'group', groupId: group.id, ...history });
      }
      const actorSvcId = dto.actorUserId ? await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.actorUserId) : null;
      // An owner is an active member: the ban ends their membership (EXTENSIONS X6).
      await this.ownership.departing(tx, group, svcUserId);
      const member = toMemberDto(row);
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        actorUserId: actorSvcId,
        action: 'member.banned',
        targetId: dto.userId,
        payload: { memberId: row.id, reason, expiresAt: member.bannedUntil },
      });
      this.permissionCache.invalidateOnCommit(tx, group.id);
      if (row.inForce && row.joinRequestPending) await this.joinRequests.banned(tx, game.gameId, group.id, svcUserId, actorSvcId);
      tx.emit({ type: 'member.banned', gameId: game.gameId, groupId: group.id, data: { member, reason, expiresAt: member.bannedUntil } });
      tx.notifyPlayer({
        gameId: game.gameId,
        kind: 'member.banned',
        svcUserId,
        groupId: group.id,
        actorUserId: actorSvcId,
        data: { group: notifiedGroup(group), reason, expiresAt: member.bannedUntil },
      });
      if (by) {
        await recordOperatorAction(tx.manager, by, {
          action: 'group.ban_added',
          gameId: game.gameId,
          targetId: dto.userId,
          details: { groupId: group.id, memberId: row.id, reason, expiresAt: member.bannedUntil },
        });
      }
      return member;
    });
  }

  async unban(game: Pick<GameContext, 'gameId'>, groupId: string, userId: string, by?: ActingOperator): Promise<MemberDto> {
    return this.uow.runBatched(async (tx) => {
      const { group, alongside } = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, userId, {
        lock: true,
        with: alongsideOf(unbanAlongside(), groupHistoryAlongside({ kind: 'lifted', reason: null, expiresAt: null, actorUserId: null })),
      });
      if (!alongside) throw ApiError.notFound('group ban');
      const row = alongsideMember<MemberRow>(alongside);
      const member = toMemberDto(row);
      tx.audit({ gameId: game.gameId, groupId: group.id, action: 'member.unbanned', targetId: userId, payload: { memberId: row.id } });
      this.permissionCache.invalidateOnCommit(tx, group.id);
      tx.emit({ type: 'member.unbanned', gameId: game.gameId, groupId: group.id, data: { member } });
      if (by) await recordOperatorAction(tx.manager, by, { action: 'group.ban_removed', gameId: game.gameId, targetId: userId, details: { groupId: group.id, memberId: row.id } });
      return member;
    });
  }
}
