import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { toPage, type Page } from '../common/pagination/page';
import { parsePageLimit } from '../common/pagination/page-limit';
import { iso, isoNN } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import type { GroupDto } from '../groups/dto/group.dto';
import { toGroupDto } from '../groups/group-view';
import { IdentityService } from '../identity/identity.service';
import type { BatchCheck, BatchCheckResult } from './dto/check-batch.dto';
import type { EffectivePermissionsDto, GroupsAllowingQueryDto } from './dto/effective-permissions.dto';
import { UnitOfWork } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import type { Alongside } from '../groups/groups.repository';
import type { CatalogDto, OverrideDto } from './dto/permission.dto';
import { PermissionCache } from './permission-cache';
import { isoOfEpochMs } from './grant-sql';
import { resolveGrant, type PermissionCheckResult, type Resolution } from './permission-resolver';
import { overrideClearAlongside, overrideSetAlongside, PermissionsRepository } from './permissions.repository';

/** The cache key of one answer within its group. */
const checkKey = (gameId: string, userId: string, permission: string) => `${gameId}\u0000${userId}\u0000${permission}`;

const GROUP_NOT_FOUND: BatchCheckResult = { error: { code: 'not_found', message: 'group not found' } };

/** The permission check (SPEC §4), member overrides (DECISIONS §1) and the permission catalog. */
@Injectable()
export class PermissionsService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repo: PermissionsRepository,
    private readonly cache: PermissionCache,
    private readonly lookup: GroupLookup,
    private readonly identity: IdentityService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * One answer, from the cache when fresh: the game route and the admin twin share it. A miss is
   * one query; an answer computed while the group's answers were invalidated is not kept.
   */
  check(gameId: string, userId: string, groupId: string, permission: string): PermissionCheckResult | Promise<PermissionCheckResult> {
    if (!isUuid(groupId)) throw ApiError.notFound('group');
    const key = checkKey(gameId, userId, permission);
    // A hit is answered synchronously: no promise on the hottest path of the service.
    return this.cache.get(groupId, key) ?? this.compute(gameId, userId, groupId, permission, key);
  }

  private async compute(gameId: string, userId: string, groupId: string, permission: string, key: string): Promise<PermissionCheckResult> {
    const generation = this.cache.generation(groupId);
    const facts = await this.repo.facts(this.ds, gameId, groupId, userId, permission);
    if (!facts) throw ApiError.notFound('group');
    return this.keep(groupId, key, resolveGrant(facts), generation);
  }

  /** Caches an answer until the TTL or the expiry of the grant deciding it, whichever comes first. */
  private keep(groupId: string, key: string, { result, expiresAt }: Resolution, generation: string): PermissionCheckResult {
    this.cache.set(groupId, key, result, generation, Date.now(), expiresAt?.getTime() ?? null);
    return result;
  }

  /**
   * EXTENSIONS X8 batch: each check answered as the single check would (its cache included); the
   * misses in one statement, so from one snapshot. A group that is not found is an error object in
   * that check's place.
   */
  async checkBatch(gameId: string, checks: readonly BatchCheck[]): Promise<BatchCheckResult[]> {
    const results: (BatchCheckResult | undefined)[] = checks.map((c) =>
      isUuid(c.groupId) ? this.cache.get(c.groupId, checkKey(gameId, c.userId, c.permission)) : GROUP_NOT_FOUND,
    );
    const misses = checks.flatMap((c, i) => (results[i] === undefined ? [{ ...c, i, generation: this.cache.generation(c.groupId) }] : []));
    if (misses.length) {
      const facts = await this.repo.batchFacts(this.ds, gameId, misses);
      misses.forEach((m, j) => {
        const f = facts[j];
        results[m.i] = f ? this.keep(m.groupId, checkKey(gameId, m.userId, m.permission), resolveGrant(f), m.generation) : GROUP_NOT_FOUND;
      });
    }
    return results as BatchCheckResult[];
  }

  /**
   * EXTENSIONS X8: every key the user is allowed in the group now, ascending, each with the grant
   * that decides it; a key an override denies is absent. Not an active member: none.
   */
  async effective(gameId: string, groupId: string, userId: string): Promise<EffectivePermissionsDto> {
    const keys = isUuid(groupId) ? await this.repo.memberFacts(this.ds, gameId, groupId, userId) : null;
    if (!keys) throw ApiError.notFound('group');
    const permissions = keys
      .map(({ permission, facts }) => ({ permission, ...resolveGrant(facts) }))
      .filter((k) => k.result.allowed)
      .sort((a, b) => (a.permission < b.permission ? -1 : 1))
      .map(({ permission, result, expiresAt }) => ({
        permission,
        source: result.source as 'role' | 'override',
        viaRoleId: result.source === 'role' ? result.viaRoleId : null,
        expiresAt: iso(expiresAt),
      }));
    return { userId, groupId, permissions };
  }

  /** EXTENSIONS X8: a page of the groups in which the user is allowed the key now; an unknown user has none. */
  async groupsAllowing(gameId: string, userId: string, q: GroupsAllowingQueryDto): Promise<Page<GroupDto>> {
    const scope = `groups-allowing:${gameId}:${scopeDigest(userId)}:${scopeDigest(q.permission)}:${q.kind ?? ''}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const svcUserId = await this.identity.find(this.ds.manager, gameId, userId);
    if (!svcUserId) return { items: [], nextCursor: null };
    const rows = await this.repo.groupsAllowing(this.ds, {
      gameId,
      svcUserId,
      permission: q.permission,
      kind: q.kind,
      after: after && { joinedAt: after.at, id: after.id },
      limit,
    });
    return toPage(rows, limit, (r) => toGroupDto(r), (r) => encodeKeyset(scope, r.memberJoinedAt, r.memberId));
  }

  /**
   * Sets an override on a member of any status, until `expiresAt` (null: for good); setting it
   * again replaces the expiry. Audited only when it changes something.
   */
  async setOverride(game: GameContext, groupId: string, userId: string, permission: string, allowed: boolean, expiresAt: Date | null): Promise<OverrideDto> {
    return this.uow.run(async (tx) => {
      const change = overrideSetAlongside(permission, allowed, expiresAt);
      const { group, memberId, previous } = await this.requireMember(tx.manager, game, groupId, userId, permission, change);
      const expires = iso(expiresAt);
      if (previous?.allowed !== allowed || isoOfEpochMs(previous.expiresAt) !== expires) {
        tx.audit({
          gameId: game.gameId,
          groupId: group.id,
          action: 'permission.override.set',
          targetId: userId,
          // An expiry is recorded when there is one: a permanent override's entry reads as it always has.
          payload: { memberId, permission, allowed, ...(expires ? { expiresAt: expires } : {}) },
        });
        this.cache.invalidateOnCommit(tx, group.id);
      }
      return { memberId, permission, allowed, expiresAt: expires };
    });
  }

  /** Clears an override; idempotent. */
  async clearOverride(game: GameContext, groupId: string, userId: string, permission: string): Promise<void> {
    await this.uow.run(async (tx) => {
      const { group, memberId, previous } = await this.requireMember(tx.manager, game, groupId, userId, permission, overrideClearAlongside(permission));
      if (previous === null) return;
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        action: 'permission.override.cleared',
        targetId: userId,
        payload: { memberId, permission, allowed: previous.allowed },
      });
      this.cache.invalidateOnCommit(tx, group.id);
    });
  }

  async catalog(gameId: string): Promise<CatalogDto> {
    const rows = await this.repo.catalog(this.ds.manager, gameId);
    return { items: rows.map((r) => ({ permission: r.permission, createdAt: isoNN(r.createdAt) })) };
  }

  /** The group and its member `userId`, with `change` (the override's) made in the same statement. */
  private async requireMember(m: EntityManager, game: GameContext, groupId: string, userId: string, permission: string, change: Alongside) {
    if (permission.length < 1 || permission.length > 128) throw ApiError.badRequest('permission must be 1-128 characters');
    const { group, alongside } = await this.lookup.liveWithUser(m, game.gameId, groupId, userId, { lock: true, with: change });
    if (!alongside) throw ApiError.notFound('member');
    return { group, memberId: alongside.id as string, previous: alongside.previous as { allowed: boolean; expiresAt: number | null } | null };
  }
}
