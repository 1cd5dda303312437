import { Inject, Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { isUuid, uuidv7 } from '../common/ids';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPageJson, type PageJson } from '../common/pagination/page';
import { iso } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import type { EventType } from '../events/event-types';
import { IdentityService } from '../identity/identity.service';
import { JoinRequestCloser } from '../join-requests/join-request-closer';
import { creatorActivationAlongside } from '../members/members.repository';
import { MembershipService } from '../members/membership.service';
import { NamePolicies, refuseNames } from '../moderation/name-policies';
import { NAME_LISTS, type NameList } from '../moderation/name-matcher';
import { recordOperatorAction } from '../operators/operator-audit';
import { PermissionCache } from '../permissions/permission-cache';
import type { CreateGroupDto, GroupDto, ListGroupsQueryDto, UpdateGroupDto } from './dto/group.dto';
import { GROUP_CREATED_AT_FIELD, GROUP_ID_FIELD, groupJson } from './group-json';
import { GroupLookup } from './group-lookup';
import type { GroupRow } from './group-row';
import { toGroupDto } from './group-view';
import { GroupsRepository, type GroupChanges } from './groups.repository';
import { hashPasscode } from './passcode';
import { ReadSource } from '../db/replica/read-source';

/** SPEC §3: a soft-deleted group can be restored for this long, then the sweeper removes it. */
export const RESTORE_WINDOW_DAYS = 7;
/** SPEC §1.5: the parent chain is walked at most this deep. */
export const MAX_PARENT_DEPTH = 100;

type Diff = { before: Record<string, unknown>; after: Record<string, unknown> };

/**
 * EXTENSIONS X10: a player's names may hold neither list's words; an operator may use the reserved
 * ones (the official "Staff" guild).
 */
const refusedFor = (by: ActingOperator | undefined): readonly NameList[] => (by ? ['blocked'] : NAME_LISTS);

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Groups (SPEC §4 Groups): create, read, list, update, soft/hard delete, restore, hierarchy. */
@Injectable()
export class GroupsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly uow: UnitOfWork,
    private readonly groups: GroupsRepository,
    private readonly lookup: GroupLookup,
    private readonly identity: IdentityService,
    private readonly membership: MembershipService,
    private readonly permissionCache: PermissionCache,
    private readonly joinRequests: JoinRequestCloser,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly names: NamePolicies,
  ) {}

  async create(game: GameContext, dto: CreateGroupDto): Promise<GroupDto> {
    await this.names.refuse(game.gameId, { name: dto.name, tags: dto.tags }, refusedFor(undefined));
    const passcodeHash = typeof dto.passcode === 'string' ? await hashPasscode(dto.passcode) : null;
    const creator = typeof dto.creatorUserId === 'string' ? dto.creatorUserId : null;
    const group = await this.uow.run(async (tx) => {
      // A creator the game knows becomes a member in the insert's statement.
      const { svcUserId = null, refusal = null, alongside = null, ...inserted } = await this.groups.insert(
        tx.manager,
        {
          id: uuidv7(),
          gameId: game.gameId,
          kind: dto.kind,
          name: dto.name,
          visibility: dto.visibility ?? 'invite-only',
          metadata: dto.metadata ?? {},
          defaultRoleId: dto.defaultRoleId ?? null,
          passcodeHash,
          tags: dto.tags ?? [],
          maxMembers: dto.maxMembers ?? null,
        },
        creator === null ? undefined : { externalUserId: creator, with: creatorActivationAlongside(creator) },
      );
      tx.audit({
        gameId: game.gameId,
        groupId: inserted.id,
        action: 'group.created',
        targetId: inserted.id,
        payload: {
          kind: inserted.kind,
          name: inserted.name,
          visibility: inserted.visibility,
          metadata: inserted.metadata,
          defaultRoleId: inserted.defaultRoleId,
        },
      });
      if (creator === null) {
        this.emitGroup(tx, 'group.created', inserted);
        return inserted;
      }
      const { row } = await this.membership.activateAlongside(tx, inserted, creator, { via: 'creator' }, { svcUserId, refusal, alongside });
      // A creator the game meets only now got their internal id with the membership: they own the group by it.
      const owned = inserted.ownerSvcUserId ? inserted : await this.groups.setOwner(tx.manager, inserted.id, { svcUserId: row.svcUserId, externalUserId: creator });
      // The creator is the new group's first active member: counted by the insert when the game knew
      // them, else by their membership's delta, written after the insert read the count.
      const withCreator = { ...owned, memberCount: inserted.memberCount + (svcUserId === null ? 1 : 0) };
      this.emitGroup(tx, 'group.created', withCreator);
      return withCreator;
    });
    return toGroupDto(group);
  }

  async get(game: GameContext, id: string, viewer?: string): Promise<GroupDto> {
    return toGroupDto(await this.lookup.visible(this.readDb.ds.manager, game.gameId, id, viewer));
  }

  async list(game: GameContext, q: ListGroupsQueryDto): Promise<PageJson> {
    if (q.gameId !== undefined && q.gameId !== game.gameId) {
      throw ApiError.badRequest('gameId must be the game of the API key');
    }
    return this.page(game, q, `groups:${game.gameId}`);
  }

  /** The live children of a live group (DECISIONS §3), as a Page<Group>. */
  async children(game: GameContext, id: string, q: ListGroupsQueryDto): Promise<PageJson> {
    const parent = await this.lookup.visible(this.readDb.ds.manager, game.gameId, id, q.viewer);
    return this.page(game, q, `children:${parent.id}`, parent.id);
  }

  /** `by`: the operator of an admin request, recorded in the operator audit when something changes. */
  async update(game: Pick<GameContext, 'gameId'>, id: string, dto: UpdateGroupDto, by?: ActingOperator): Promise<GroupDto> {
    const supplied = (Object.keys(dto) as (keyof UpdateGroupDto)[]).filter((k) => dto[k] !== undefined);
    if (!supplied.length) {
      throw ApiError.badRequest('body must hold at least one of name, visibility, metadata, defaultRoleId, passcode, tags, maxMembers');
    }
    const newHash = typeof dto.passcode === 'string' ? await hashPasscode(dto.passcode) : undefined;
    // Read before the transaction: a policy not cached yet must not take a second connection while the group is locked.
    const names = dto.name !== undefined || dto.tags !== undefined ? await this.names.matcherOf(game.gameId) : null;
    const group = await this.uow.run(async (tx) => {
      const current = await this.lookup.live(tx.manager, game.gameId, id, true);
      // After the lookup: a group that is not there answers 404 whatever its new name.
      if (names) refuseNames(names, { name: dto.name, tags: dto.tags }, refusedFor(by));
      const changes: GroupChanges = {};
      const diff: Diff = { before: {}, after: {} };
      const change = <K extends keyof GroupChanges>(key: K, value: GroupChanges[K], before: unknown, after: unknown, label: string = key) => {
        changes[key] = value;
        diff.before[label] = before;
        diff.after[label] = after;
      };
      if (dto.name !== undefined && dto.name !== current.name) change('name', dto.name, current.name, dto.name);
      if (dto.visibility !== undefined && dto.visibility !== current.visibility) {
        change('visibility', dto.visibility, current.visibility, dto.visibility);
      }
      // SPEC §4: metadata counts as changed whenever supplied.
      if (dto.metadata !== undefined) change('metadata', dto.metadata, current.metadata, dto.metadata);
      if (dto.defaultRoleId !== undefined && dto.defaultRoleId !== current.defaultRoleId) {
        change('defaultRoleId', dto.defaultRoleId, current.defaultRoleId, dto.defaultRoleId);
      }
      if (dto.tags !== undefined && !sameList(dto.tags, current.tags)) change('tags', dto.tags, current.tags, dto.tags);
      if (dto.maxMembers !== undefined && dto.maxMembers !== current.maxMembers) {
        change('maxMembers', dto.maxMembers, current.maxMembers, dto.maxMembers);
      }
      const hadPasscode = current.passcodeHash !== null;
      if (newHash !== undefined) change('passcodeHash', newHash, hadPasscode, true, 'hasPasscode');
      else if (dto.passcode === null && hadPasscode) change('passcodeHash', null, true, false, 'hasPasscode');
      if (!Object.keys(changes).length) return current;
      const updated = await this.groups.update(tx.manager, current.id, changes);
      tx.audit({ gameId: game.gameId, groupId: current.id, action: 'group.updated', targetId: current.id, payload: diff });
      this.emitGroup(tx, 'group.updated', updated, { changes: Object.keys(diff.after) });
      if (by) await recordOperatorAction(tx.manager, by, { action: 'group.updated', gameId: game.gameId, targetId: current.id, details: diff });
      return updated;
    });
    return toGroupDto(group);
  }

  /** Soft delete (idempotent: a second call changes nothing) or, with `hard`, removal with cascade. */
  /** `by`: the operator of an admin request (soft deletes only), recorded in the operator audit when something changes. */
  async delete(game: Pick<GameContext, 'gameId'>, id: string, hard: boolean, by?: ActingOperator): Promise<GroupDto | null> {
    return this.uow.run(async (tx) => {
      const current = isUuid(id) ? await this.groups.find(tx.manager, game.gameId, id, true) : null;
      if (!current) throw ApiError.notFound('group');
      if (hard) {
        await this.groups.hardDelete(tx.manager, current.id);
        this.permissionCache.invalidateOnCommit(tx, current.id);
        tx.emit({ type: 'group.deleted', gameId: game.gameId, groupId: current.id, data: { kind: 'hard', group: toGroupDto(current) } });
        return null;
      }
      if (current.softDeletedAt) return toGroupDto(current);
      const deleted = await this.groups.setSoftDeleted(tx.manager, current.id, 'now');
      this.permissionCache.invalidateOnCommit(tx, current.id);
      // A restore does not reopen them: the requester asks again if they still want in.
      await this.joinRequests.groupDeleted(tx, current.id);
      tx.audit({
        gameId: game.gameId,
        groupId: current.id,
        action: 'group.deleted',
        targetId: current.id,
        payload: { kind: 'soft', softDeletedAt: iso(deleted.softDeletedAt), retentionDays: RESTORE_WINDOW_DAYS },
      });
      this.emitGroup(tx, 'group.deleted', deleted, { kind: 'soft' });
      if (by) {
        await recordOperatorAction(tx.manager, by, {
          action: 'group.deleted',
          gameId: game.gameId,
          targetId: current.id,
          details: { name: current.name, kind: 'soft', softDeletedAt: iso(deleted.softDeletedAt) },
        });
      }
      return toGroupDto(deleted);
    });
  }

  async restore(game: Pick<GameContext, 'gameId'>, id: string, by?: ActingOperator): Promise<GroupDto> {
    const group = await this.uow.run(async (tx) => {
      const current = isUuid(id) ? await this.groups.find(tx.manager, game.gameId, id, true) : null;
      if (!current) throw ApiError.notFound('group');
      if (!current.softDeletedAt) return current;
      const windowMs = RESTORE_WINDOW_DAYS * 86_400_000;
      const [{ now }] = await tx.manager.query('SELECT now() AS now');
      if ((now as Date).getTime() - current.softDeletedAt.getTime() > windowMs) {
        throw new ApiError('restore_window_expired', `a group can be restored only within ${RESTORE_WINDOW_DAYS} days of its deletion`);
      }
      const restored = await this.groups.setSoftDeleted(tx.manager, current.id, null);
      tx.audit({
        gameId: game.gameId,
        groupId: current.id,
        action: 'group.restored',
        targetId: current.id,
        payload: { previousSoftDeletedAt: iso(current.softDeletedAt) },
      });
      this.emitGroup(tx, 'group.restored', restored);
      if (by) {
        await recordOperatorAction(tx.manager, by, {
          action: 'group.restored',
          gameId: game.gameId,
          targetId: current.id,
          details: { name: current.name, previousSoftDeletedAt: iso(current.softDeletedAt) },
        });
      }
      return restored;
    });
    return toGroupDto(group);
  }

  /**
   * Sets or clears the parent (DECISIONS §3). Hierarchy changes of a game are serialised, so two
   * concurrent moves cannot together close a cycle that neither sees alone.
   */
  async setParent(game: GameContext, id: string, parentGroupId: string | null): Promise<GroupDto> {
    const group = await this.uow.run(async (tx) => {
      await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('svc:hierarchy:' || $1))`, [game.gameId]);
      const current = await this.lookup.live(tx.manager, game.gameId, id, true);
      if (parentGroupId !== null) {
        if (parentGroupId === current.id) throw new ApiError('parent_cycle', 'a group cannot be its own parent');
        // Locked, so a concurrent hard delete of the parent either finishes first (404) or waits.
        const parent = await this.lookup.live(tx.manager, game.gameId, parentGroupId, true).catch(() => {
          throw ApiError.notFound('parent group');
        });
        const chain = [parent.id, ...(await this.groups.ancestors(tx.manager, parent.id, MAX_PARENT_DEPTH))];
        if (chain.slice(0, MAX_PARENT_DEPTH).includes(current.id)) {
          throw new ApiError('parent_cycle', 'this parent would make the group its own ancestor');
        }
        if (chain.length > MAX_PARENT_DEPTH) {
          throw new ApiError('parent_cycle', `the parent chain would be deeper than ${MAX_PARENT_DEPTH}`);
        }
      }
      if (current.parentGroupId === parentGroupId) return current;
      const updated = await this.groups.setParent(tx.manager, current.id, parentGroupId);
      tx.audit({
        gameId: game.gameId,
        groupId: current.id,
        action: 'group.parent.changed',
        targetId: current.id,
        payload: { before: { parentGroupId: current.parentGroupId }, after: { parentGroupId } },
      });
      this.emitGroup(tx, 'group.updated', updated, { changes: ['parentGroupId'] });
      return updated;
    });
    return toGroupDto(group);
  }

  /** A page of live groups, written as JSON by groupJson (the bytes JSON.stringify wrote of a Page of GroupDto). */
  private async page(game: GameContext, q: ListGroupsQueryDto, scope: string, parentGroupId?: string): Promise<PageJson> {
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const viewer = q.viewer === undefined ? undefined : { userId: await this.identity.find(this.readDb.ds.manager, game.gameId, q.viewer) };
    const rows = await this.groups.listJson(this.readDb.ds, {
      gameId: game.gameId,
      parentGroupId,
      viewer,
      after: after && { createdAt: after.at, id: after.id },
      limit,
    });
    return toPageJson(rows, limit, groupJson, (f) => encodeKeyset(scope, new Date(Number(f[GROUP_CREATED_AT_FIELD])), f[GROUP_ID_FIELD]));
  }

  private emitGroup(tx: Tx, type: EventType, group: GroupRow, extra: Record<string, unknown> = {}): void {
    tx.emit({ type, gameId: group.gameId, groupId: group.id, data: { ...extra, group: toGroupDto(group) } });
  }
}
