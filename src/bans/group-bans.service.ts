import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { UnitOfWork } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import { IdentityService } from '../identity/identity.service';
import { JoinRequestCloser } from '../join-requests/join-request-closer';
import type { MemberDto } from '../members/dto/member.dto';
import { toMemberDto } from '../members/member-view';
import { MembersRepository } from '../members/members.repository';
import { PermissionCache } from '../permissions/permission-cache';
import { BansRepository } from './bans.repository';
import type { GroupBanDto } from './dto/ban.dto';

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
  ) {}

  async ban(game: GameContext, groupId: string, dto: GroupBanDto): Promise<MemberDto> {
    return this.uow.run(async (tx) => {
      const { group, svcUserId: known } = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, dto.userId, { lock: true });
      const svcUserId = known ?? (await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.userId));
      const actorSvcId = dto.actorUserId ? await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.actorUserId) : null;
      const until = dto.expiresAt ? new Date(dto.expiresAt) : null;
      const reason = dto.reason ?? null;
      const row = await this.members.ban(tx.manager, group.id, svcUserId, dto.userId, until);
      const member = toMemberDto(row);
      await this.bans.addHistory(tx.manager, {
        gameId: game.gameId,
        svcUserId,
        userId: dto.userId,
        scope: 'group',
        groupId: group.id,
        kind: 'set',
        reason,
        expiresAt: until,
        actorUserId: dto.actorUserId ?? null,
      });
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        actorUserId: actorSvcId,
        action: 'member.banned',
        targetId: dto.userId,
        payload: { memberId: row.id, reason, expiresAt: member.bannedUntil },
      });
      this.permissionCache.invalidateOnCommit(tx, group.id);
      if (row.inForce) await this.joinRequests.banned(tx, game.gameId, group.id, svcUserId, actorSvcId);
      tx.emit({ type: 'member.banned', gameId: game.gameId, groupId: group.id, data: { member, reason, expiresAt: member.bannedUntil } });
      return member;
    });
  }

  async unban(game: GameContext, groupId: string, userId: string): Promise<MemberDto> {
    return this.uow.run(async (tx) => {
      const { group, svcUserId } = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, userId, { lock: true });
      const current = svcUserId ? await this.members.findByUser(tx.manager, group.id, svcUserId) : null;
      const row = current ? await this.members.unban(tx.manager, current.id) : null;
      if (!row || !svcUserId) throw ApiError.notFound('group ban');
      const member = toMemberDto(row);
      await this.bans.addHistory(tx.manager, {
        gameId: game.gameId,
        svcUserId,
        userId,
        scope: 'group',
        groupId: group.id,
        kind: 'lifted',
        reason: null,
        expiresAt: null,
        actorUserId: null,
      });
      tx.audit({ gameId: game.gameId, groupId: group.id, action: 'member.unbanned', targetId: userId, payload: { memberId: row.id } });
      this.permissionCache.invalidateOnCommit(tx, group.id);
      tx.emit({ type: 'member.unbanned', gameId: game.gameId, groupId: group.id, data: { member } });
      return member;
    });
  }
}
