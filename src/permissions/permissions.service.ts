import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { toPageJson, type PageJson } from '../common/pagination/page';
import { parsePageLimit } from '../common/pagination/page-limit';
import { iso, isoNN, isoOfEpochMs } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { groupJson } from '../groups/group-json';
import type { BatchCheck, BatchCheckResult } from './dto/check-batch.dto';
import type { EffectivePermissionsDto, GroupsAllowingQueryDto } from './dto/effective-permissions.dto';
import { UnitOfWork } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import type { Alongside } from '../groups/groups.repository';
import type { CatalogDto, OverrideDto } from './dto/permission.dto';
import { LoadsInFlight } from './loads-in-flight';
import { PermissionCache } from './permission-cache';
import { GameConfigService } from '../game-config/game-config.service';
import { profileFacts, profileKeys, profileUntil, profileWeight, timedOutAt, type GrantProfile } from './grant-profile';
import { resolveGrant, type PermissionCheckResult } from './permission-resolver';
import { overrideClearAlongside, overrideSetAlongside, PermissionsRepository, type MembershipRow } from './permissions.repository';

/** The cache key of a user's grant profile within its group. */
const profileKey = (gameId: string, userId: string) => `${gameId}\u0000${userId}`;

/** A check answered from a profile at `now` (epoch ms), through the one resolution; `denied`: the keys a timeout denies. */
const answer = (profile: GrantProfile, permission: string, now: number, denied: readonly string[]): PermissionCheckResult =>
  resolveGrant(profileFacts(profile, permission, now, denied)).result;

/** The keys a timeout denies, when no timeout is in force: none need be read. */
const NO_TIMEOUT: readonly string[] = [];

/** The most memberships read in one statement while filling a page of groups allowing a key. */
const MEMBERSHIP_BATCH_MAX = 1000;

const GROUP_NOT_FOUND: BatchCheckResult = { error: { code: 'not_found', message: 'group not found' } };

/** The permission check (SPEC §4), member overrides (DECISIONS §1) and the permission catalog. */
@Injectable()
export class PermissionsService {
  private readonly loading = new LoadsInFlight<GrantProfile | null>();

  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repo: PermissionsRepository,
    private readonly cache: PermissionCache,
    private readonly lookup: GroupLookup,
    private readonly configs: GameConfigService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * One answer, from the user's cached grant profile when fresh (any key, asked before or not): the
   * game route and the admin twin share it. A miss loads the profile in one query.
   */
  check(gameId: string, userId: string, groupId: string, permission: string): PermissionCheckResult | Promise<PermissionCheckResult> {
    if (!isUuid(groupId)) throw ApiError.notFound('group');
    const now = Date.now();
    const cached = this.cache.get(groupId, profileKey(gameId, userId), now);
    // A hit is answered synchronously: no promise on the hottest path of the service.
    if (cached && !timedOutAt(cached, now)) return answer(cached, permission, now, NO_TIMEOUT);
    return this.compute(gameId, userId, groupId, permission, cached);
  }

  private async compute(gameId: string, userId: string, groupId: string, permission: string, cached?: GrantProfile): Promise<PermissionCheckResult> {
    const profile = cached ?? (await this.loadProfiles(gameId, [{ groupId, userId }]))[0];
    if (!profile) throw ApiError.notFound('group');
    const denied = await this.timeoutDenied(gameId, [profile], Date.now());
    return answer(profile, permission, Date.now(), denied);
  }

  /**
   * The game's `moderation.timeoutDeniedPermissions` (EXTENSIONS X10), from the config cache that
   * every config change clears on every instance; read only when one of `profiles` is timed out
   * at `now`. A timeout only ends, so a profile not timed out at `now` is not later either.
   */
  private async timeoutDenied(gameId: string, profiles: readonly (GrantProfile | null | undefined)[], now: number): Promise<readonly string[]> {
    if (!profiles.some((p) => p && timedOutAt(p, now))) return NO_TIMEOUT;
    return this.configs.timeoutDeniedPermissions(gameId);
  }


  /**
   * The profiles of distinct (group, user) pairs in one statement, each kept until the TTL or the
   * first expiry among its grants; one computed while its group was invalidated is not kept. A pair
   * whose load is already in flight, begun at the same generation of its group, joins that load: a
   * load begun before an invalidation is never the answer of a request that began after it.
   */
  private loadProfiles(gameId: string, pairs: readonly { groupId: string; userId: string }[]): Promise<(GrantProfile | null)[]> {
    const generations = pairs.map((p) => this.cache.generation(p.groupId));
    const keys = pairs.map((p, i) => `${generations[i]}\u0000${p.groupId}\u0000${profileKey(gameId, p.userId)}`);
    return this.loading.get(keys, async (indexes) => {
      const profiles = await this.repo.profiles(this.ds, gameId, indexes.map((i) => pairs[i]));
      const now = Date.now();
      profiles.forEach((profile, j) => {
        const { groupId, userId } = pairs[indexes[j]];
        if (profile) this.cache.set(groupId, profileKey(gameId, userId), profile, generations[indexes[j]], now, profileUntil(profile), profileWeight(profile));
      });
      return profiles;
    });
  }

  /**
   * EXTENSIONS X8 batch: each check answered as the single check would, all at one instant. The
   * profiles not cached are loaded in one statement, each (group, user) pair once however many of
   * its keys are asked (those another request is loading join its load). A group that is not found
   * is an error object in that check's place.
   */
  async checkBatch(gameId: string, checks: readonly BatchCheck[]): Promise<BatchCheckResult[]> {
    // A screen asks many keys of few members: one cache lookup and at most one load per (group,
    // user), each check still counted in the hit ratio, as the single check counts. A group id
    // that is no uuid (not found) maps to null, tested once per distinct id.
    const members = new Map<string, Map<string, { asked: number; profile: GrantProfile | null | undefined }> | null>();
    const memberOf = checks.map((c) => {
      let users = members.get(c.groupId);
      if (users === undefined) members.set(c.groupId, (users = isUuid(c.groupId) ? new Map() : null));
      if (users === null) return null;
      let m = users.get(c.userId);
      if (!m) users.set(c.userId, (m = { asked: 0, profile: undefined }));
      m.asked++;
      return m;
    });
    const now = Date.now();
    // One key string per user, however many of her groups are asked: the cache hashes it once.
    const keys = new Map<string, string>();
    const keyOf = (userId: string) => {
      let key = keys.get(userId);
      if (key === undefined) keys.set(userId, (key = profileKey(gameId, userId)));
      return key;
    };
    const missing: { groupId: string; userId: string; member: { profile: GrantProfile | null | undefined } }[] = [];
    for (const [groupId, users] of members) {
      for (const [userId, member] of users ?? []) {
        member.profile = this.cache.get(groupId, keyOf(userId), now, member.asked);
        if (!member.profile) missing.push({ groupId, userId, member });
      }
    }
    if (missing.length) (await this.loadProfiles(gameId, missing)).forEach((profile, j) => (missing[j].member.profile = profile));
    const profiles = memberOf.map((m) => m?.profile ?? null);
    const at = Date.now();
    const denied = await this.timeoutDenied(gameId, profiles, at);
    return profiles.map((profile, i) => (profile ? answer(profile, checks[i].permission, at, denied) : GROUP_NOT_FOUND));
  }

  /**
   * EXTENSIONS X8: every key the user is allowed in the group now, ascending, each with the grant
   * that decides it; a key an override denies is absent. Not an active member: none. Read from the
   * same cached profile as the checks.
   */
  async effective(gameId: string, groupId: string, userId: string): Promise<EffectivePermissionsDto> {
    if (!isUuid(groupId)) throw ApiError.notFound('group');
    const profile = this.cache.get(groupId, profileKey(gameId, userId)) ?? (await this.loadProfiles(gameId, [{ groupId, userId }]))[0];
    if (!profile) throw ApiError.notFound('group');
    const now = Date.now();
    const denied = await this.timeoutDenied(gameId, [profile], now);
    const permissions = [...profileKeys(profile, now)]
      .sort()
      .map((permission) => ({ permission, ...resolveGrant(profileFacts(profile, permission, now, denied)) }))
      .filter((k) => k.result.allowed)
      .map(({ permission, result, expiresAt }) => ({
        permission,
        source: result.source as 'role' | 'override',
        viaRoleId: result.source === 'role' ? result.viaRoleId : null,
        expiresAt: iso(expiresAt),
      }));
    return { userId, groupId, permissions };
  }

  /**
   * EXTENSIONS X8: a page of the groups in which the user is allowed the key now; an unknown user
   * has none. The user's active memberships are read in order, a batch at a time, and each is
   * answered by the single check's resolution from the member's grant profile (cached, or the
   * missing ones loaded in one statement), so the list and the check never disagree and a page of
   * cached members costs the database one plain index walk. The page is written as JSON here,
   * the bytes JSON.stringify wrote of a Page of GroupDto.
   */
  async groupsAllowing(gameId: string, userId: string, q: GroupsAllowingQueryDto): Promise<PageJson> {
    const scope = `groups-allowing:${gameId}:${scopeDigest(userId)}:${scopeDigest(q.permission)}:${q.kind ?? ''}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const decoded = decodeKeyset(q.cursor, scope);
    let after = decoded && { joinedAt: decoded.at, id: decoded.id };
    const allowed: MembershipRow[] = [];
    while (allowed.length <= limit) {
      // A quarter more than the page still needs: a batch then covers the few groups that deny.
      const want = Math.min(MEMBERSHIP_BATCH_MAX, Math.ceil((limit + 1 - allowed.length) * 1.25));
      const rows = await this.repo.activeMemberships(this.ds, { gameId, userId, kind: q.kind, after, limit: want });
      const profiles = await this.profilesOf(gameId, rows.map((r) => ({ groupId: r.groupId, userId })));
      const now = Date.now();
      const denied = await this.timeoutDenied(gameId, profiles, now);
      rows.forEach((r, i) => {
        const profile = profiles[i];
        if (allowed.length <= limit && profile && answer(profile, q.permission, now, denied).allowed) allowed.push(r);
      });
      if (rows.length < want) break;
      const last = rows[rows.length - 1];
      after = { joinedAt: isoOfEpochMs(last.memberJoinedAt) as string, id: last.memberId };
    }
    return toPageJson(allowed, limit, (r) => groupJson(r.group), (r) => encodeKeyset(scope, new Date(Number(r.memberJoinedAt)), r.memberId));
  }

  /** The profiles of (group, user) pairs, from the cache or, those missing, loaded in one statement. */
  private async profilesOf(gameId: string, pairs: readonly { groupId: string; userId: string }[]): Promise<(GrantProfile | null)[]> {
    const profiles: (GrantProfile | null | undefined)[] = pairs.map((p) => this.cache.get(p.groupId, profileKey(gameId, p.userId)));
    const missing = pairs.filter((_, i) => !profiles[i]);
    if (missing.length) {
      const loaded = await this.loadProfiles(gameId, missing);
      let j = 0;
      profiles.forEach((p, i) => {
        if (!p) profiles[i] = loaded[j++];
      });
    }
    return profiles as (GrantProfile | null)[];
  }

  /**
   * Sets an override on a member of any status, until `expiresAt` (null: for good); setting it
   * again replaces the expiry. Audited only when it changes something.
   */
  async setOverride(game: GameContext, groupId: string, userId: string, permission: string, allowed: boolean, expiresAt: Date | null): Promise<OverrideDto> {
    return this.uow.runBatched(async (tx) => {
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
    await this.uow.runBatched(async (tx) => {
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
