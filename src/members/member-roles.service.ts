import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { UnitOfWork } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import { recordOperatorAction } from '../operators/operator-audit';
import { PermissionCache } from '../permissions/permission-cache';
import { roleChangeAlongside } from '../roles/roles.repository';
import type { MemberDto } from './dto/member.dto';
import { toMemberDto } from './member-view';
import type { MemberRow } from './member-row';
import { alongsideMember } from './members.repository';
import { notifiedGroup } from '../notifications/notification-data';

/**
 * Role assignment (DECISIONS §2): idempotent, audited only on change. A role of another group is
 * 400 `role_group_mismatch`, checked before idempotency, on assign and remove alike (§20).
 */
@Injectable()
export class MemberRolesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly permissionCache: PermissionCache,
  ) {}

  /**
   * `expiresAt`: when the assignment ends (null: permanent); assigning again replaces it (EXTENSIONS X8).
   * `by`: the operator of an admin request, recorded in the operator audit when the assignment changes something.
   */
  assign(game: Pick<GameContext, 'gameId'>, groupId: string, userId: string, roleId: string, expiresAt: Date | null = null, by?: ActingOperator): Promise<MemberDto> {
    return this.change(game, groupId, userId, roleId, 'assign', expiresAt, by);
  }

  remove(game: GameContext, groupId: string, userId: string, roleId: string): Promise<MemberDto> {
    return this.change(game, groupId, userId, roleId, 'remove');
  }

  private change(
    game: Pick<GameContext, 'gameId'>,
    groupId: string,
    userId: string,
    roleId: string,
    op: 'assign' | 'remove',
    expiresAt: Date | null = null,
    by?: ActingOperator,
  ): Promise<MemberDto> {
    return this.uow.runBatched(async (tx) => {
      const { group, alongside } = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, userId, {
        lock: true,
        with: roleChangeAlongside(op, isUuid(roleId) ? roleId : null, expiresAt),
      });
      if (!alongside) throw ApiError.notFound('member');
      const { roleId: foundRoleId, roleGroupId, changed, ...member } = alongside as Record<string, unknown> & { roleId: string | null; roleGroupId: string | null; changed: boolean };
      if (!foundRoleId) throw ApiError.notFound('role');
      if (roleGroupId !== group.id) throw new ApiError('role_group_mismatch', 'the role belongs to another group');
      const row = alongsideMember<MemberRow>(member);
      const dto = toMemberDto(row);
      if (!changed) return dto;
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        action: op === 'assign' ? 'member.role.assigned' : 'member.role.removed',
        targetId: userId,
        // An expiry is recorded when there is one: a permanent grant's entry reads as it always has.
        payload: { memberId: dto.id, roleId: foundRoleId, ...(op === 'assign' && expiresAt ? { expiresAt: expiresAt.toISOString() } : {}) },
      });
      if (by) {
        await recordOperatorAction(tx.manager, by, {
          action: 'member.role_assigned',
          gameId: game.gameId,
          targetId: userId,
          details: { groupId: group.id, memberId: dto.id, roleId: foundRoleId, expiresAt: expiresAt?.toISOString() ?? null },
        });
      }
      this.permissionCache.invalidateOnCommit(tx, group.id);
      tx.emit({ type: 'member.updated', gameId: game.gameId, groupId: group.id, data: { member: dto, changes: ['roles'] } });
      tx.notifyPlayer({
        gameId: game.gameId,
        kind: 'member.roles_changed',
        svcUserId: row.svcUserId,
        groupId: group.id,
        data: {
          group: notifiedGroup(group),
          roleId: foundRoleId,
          change: op === 'assign' ? 'assigned' : 'removed',
          ...(op === 'assign' ? { expiresAt: expiresAt?.toISOString() ?? null } : {}),
        },
      });
      return dto;
    });
  }
}
