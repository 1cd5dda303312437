import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import { PermissionCache } from '../permissions/permission-cache';
import { PermissionsRepository } from '../permissions/permissions.repository';
import type { CreateRoleDto, RoleDto, UpdateRoleDto } from './dto/role.dto';
import type { RoleRow } from './role-row';
import { toRoleDto } from './role-view';
import { RolesRepository, type RoleChanges } from './roles.repository';

/** Roles and their permissions (SPEC §4 Roles). */
@Injectable()
export class RolesService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly roles: RolesRepository,
    private readonly permissions: PermissionsRepository,
    private readonly cache: PermissionCache,
  ) {}

  async create(game: GameContext, groupId: string, dto: CreateRoleDto): Promise<RoleDto> {
    return this.uow.run(async (tx) => {
      const group = await this.lookup.liveHead(tx.manager, game.gameId, groupId, true);
      const role = await this.roles.insert(tx.manager, {
        groupId: group.id,
        name: dto.name,
        priority: dto.priority,
        color: dto.color ?? null,
        isDefault: dto.isDefault ?? false,
      });
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        action: 'role.created',
        targetId: role.id,
        payload: { name: role.name, priority: role.priority, color: role.color, isDefault: role.isDefault },
      });
      return this.changed(tx, game, role, 'created');
    });
  }

  async list(game: Pick<GameContext, 'gameId'>, groupId: string): Promise<RoleDto[]> {
    const group = await this.lookup.liveHead(this.ds.manager, game.gameId, groupId);
    return (await this.roles.listForGroup(this.ds.manager, group.id)).map(toRoleDto);
  }

  async get(game: GameContext, roleId: string): Promise<RoleDto> {
    return toRoleDto(await this.find(this.ds.manager, game, roleId));
  }

  async update(game: GameContext, roleId: string, dto: UpdateRoleDto): Promise<RoleDto> {
    const supplied = (Object.keys(dto) as (keyof UpdateRoleDto)[]).filter((k) => dto[k] !== undefined);
    if (!supplied.length) throw ApiError.badRequest('body must hold at least one of name, priority, color, isDefault');
    return this.uow.run(async (tx) => {
      const role = await this.lockForChange(tx.manager, game, roleId);
      const changes: RoleChanges = {};
      const before: Record<string, unknown> = {};
      const after: Record<string, unknown> = {};
      for (const key of ['name', 'priority', 'color', 'isDefault'] as const) {
        const value = dto[key];
        if (value === undefined || value === role[key]) continue;
        (changes as Record<string, unknown>)[key] = value;
        before[key] = role[key];
        after[key] = value;
      }
      if (!Object.keys(changes).length) return toRoleDto(role);
      const updated = await this.roles.update(tx.manager, role.id, changes);
      tx.audit({ gameId: game.gameId, groupId: role.groupId, action: 'role.updated', targetId: role.id, payload: { before, after } });
      // A new priority can change which granting role a check names.
      if ('priority' in changes) this.cache.invalidateOnCommit(tx, role.groupId);
      return this.changed(tx, game, updated, 'updated');
    });
  }

  /** Hard delete; refused while any member holds the role (SPEC §4). */
  async delete(game: GameContext, roleId: string): Promise<void> {
    await this.uow.run(async (tx) => {
      const role = await this.lockForChange(tx.manager, game, roleId);
      if (await this.roles.hasAssignments(tx.manager, role.id)) {
        throw new ApiError('role_has_members', 'the role is still assigned to members: remove it from them first');
      }
      await this.roles.delete(tx.manager, role.id);
      tx.audit({
        gameId: game.gameId,
        groupId: role.groupId,
        action: 'role.deleted',
        targetId: role.id,
        payload: { name: role.name, priority: role.priority, color: role.color, isDefault: role.isDefault },
      });
      this.cache.invalidateOnCommit(tx, role.groupId);
      this.changed(tx, game, role, 'deleted');
    });
  }

  /** Idempotent; the first grant of a key in the game registers it in the catalog. */
  async grant(game: GameContext, roleId: string, permission: string): Promise<RoleDto> {
    return this.uow.run(async (tx) => {
      const role = await this.find(tx.manager, game, roleId, true);
      if (!(await this.roles.grant(tx.manager, role.id, permission))) return toRoleDto(role);
      await this.permissions.register(tx.manager, game.gameId, permission);
      tx.audit({ gameId: game.gameId, groupId: role.groupId, action: 'permission.granted', targetId: role.id, payload: { roleId: role.id, permission } });
      this.cache.invalidateOnCommit(tx, role.groupId);
      return this.changed(tx, game, (await this.roles.findInGame(tx.manager, game.gameId, role.id))!, 'permission.granted', { permission });
    });
  }

  /** Idempotent: revoking a key that is not granted changes nothing. */
  async revoke(game: GameContext, roleId: string, permission: string): Promise<RoleDto> {
    return this.uow.run(async (tx) => {
      const role = await this.find(tx.manager, game, roleId, true);
      if (!(await this.roles.revoke(tx.manager, role.id, permission))) return toRoleDto(role);
      tx.audit({ gameId: game.gameId, groupId: role.groupId, action: 'permission.revoked', targetId: role.id, payload: { roleId: role.id, permission } });
      this.cache.invalidateOnCommit(tx, role.groupId);
      return this.changed(tx, game, (await this.roles.findInGame(tx.manager, game.gameId, role.id))!, 'permission.revoked', { permission });
    });
  }

  /**
   * The role, for a change to it (update, delete): a write to its group, so the group's lock is
   * taken first, exclusive: a join in flight that gives the role as the group's default finishes
   * first, and none starts until this change commits.
   */
  private async lockForChange(m: EntityManager, game: GameContext, roleId: string): Promise<RoleRow> {
    const { groupId } = await this.find(m, game, roleId);
    await this.lookup.liveHead(m, game.gameId, groupId, true);
    return this.find(m, game, roleId, true);
  }

  /** A role of this game whose group is live; anything else is 404. `lock` as RolesRepository.findInGame. */
  async find(m: EntityManager, game: GameContext, roleId: string, lock = false): Promise<RoleRow> {
    const role = isUuid(roleId) ? await this.roles.findInGame(m, game.gameId, roleId, lock) : null;
    if (!role || role.groupDeleted) throw ApiError.notFound('role');
    return role;
  }

  private changed(tx: Tx, game: GameContext, role: RoleRow, change: string, extra: Record<string, unknown> = {}): RoleDto {
    const dto = toRoleDto(role);
    tx.emit({ type: 'role.changed', gameId: game.gameId, groupId: role.groupId, data: { change, ...extra, role: dto } });
    return dto;
  }
}
