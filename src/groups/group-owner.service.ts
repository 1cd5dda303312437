import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { UnitOfWork } from '../db/unit-of-work';
import { IdentityService } from '../identity/identity.service';
import type { GroupDto, SetOwnerDto } from './dto/group.dto';
import { GroupLookup } from './group-lookup';
import { GroupOwnership } from './group-ownership';
import { toGroupDto } from './group-view';
import { GroupsRepository } from './groups.repository';
import { notifiedGroup } from '../notifications/notification-data';

/** POST /v1/groups/:id/owner (EXTENSIONS X6): hands a group to one of its active members. */
@Injectable()
export class GroupOwnerService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly groups: GroupsRepository,
    private readonly identity: IdentityService,
    private readonly ownership: GroupOwnership,
  ) {}

  /**
   * The group's lock is taken exclusive, as for its settings: the member writes in flight finish
   * first, so the new owner is still active when the change commits, and cannot leave before it.
   */
  async set(game: GameContext, groupId: string, dto: SetOwnerDto): Promise<GroupDto> {
    const group = await this.uow.run(async (tx) => {
      const current = await this.lookup.live(tx.manager, game.gameId, groupId, true);
      const svcUserId = await this.identity.find(tx.manager, game.gameId, dto.userId);
      if (!svcUserId || !(await this.groups.hasActiveMember(tx.manager, current.id, svcUserId))) {
        throw new ApiError('not_a_member', `${dto.userId} is not an active member of this group`);
      }
      if (current.ownerSvcUserId === svcUserId) return current;
      const updated = await this.groups.setOwner(tx.manager, current.id, { svcUserId, externalUserId: dto.userId });
      const actor = dto.actorUserId ? await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.actorUserId) : null;
      this.ownership.changed(tx, updated, current.ownerUserId, dto.userId, actor);
      tx.notifyPlayer({ gameId: game.gameId, kind: 'group.ownership_received', svcUserId, groupId: updated.id, actorUserId: actor, data: { group: notifiedGroup(updated) } });
      return updated;
    });
    return toGroupDto(group);
  }
}
