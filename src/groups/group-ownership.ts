import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import type { Tx } from '../db/unit-of-work';
import type { GroupRow, LookedUpGroup } from './group-row';
import { toGroupDto } from './group-view';
import { GroupsRepository } from './groups.repository';

/**
 * A group's owner (EXTENSIONS X6) and the members' departures: while other active members remain,
 * the owner cannot leave, be kicked or be group-banned; the owner who departs as the last active
 * member leaves the group without one. Shared by leave, kick and group ban, on the game's and the
 * operator's routes alike.
 */
@Injectable()
export class GroupOwnership {
  constructor(private readonly groups: GroupsRepository) {}

  /**
   * Called when `svcUserId` stops being an active member of `group`, as read by the departure's own
   * statement (its memberCount still counts them: the lookup counts the members of a group its user
   * owns). Throws, so that the departure is rolled back, when they own it and others remain; clears
   * the ownership when they were its last active member. That writes no entry or event of its own:
   * the departure's (member.left, .kicked, .banned) tells it, and the routes' audit trails stay the
   * ones they were before groups had owners.
   */
  async departing(tx: Tx, group: LookedUpGroup, svcUserId: string): Promise<void> {
    if (group.ownerSvcUserId !== svcUserId) return;
    if (group.memberCount === null) throw new Error(`the departure of group ${group.id}'s owner was looked up without its member count`);
    if (group.memberCount > 1) {
      throw new ApiError('owner_must_transfer', `${group.ownerUserId} owns this group: make another active member its owner first (POST /v1/groups/{id}/owner)`);
    }
    await this.groups.setOwner(tx.manager, group.id, null);
  }

  /** The audit entry and event of a change of owner. */
  changed(tx: Tx, group: GroupRow, from: string | null, to: string, actorUserId: string | null): void {
    tx.audit({
      gameId: group.gameId,
      groupId: group.id,
      actorUserId,
      action: 'group.owner_changed',
      targetId: to,
      payload: { from, to },
    });
    tx.emit({ type: 'group.owner_changed', gameId: group.gameId, groupId: group.id, data: { group: toGroupDto(group), fromUserId: from, toUserId: to } });
  }
}
