import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPageJson, type PageJson } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { GroupLookup, liveLookedUp, type LookedUp } from '../groups/group-lookup';
import { GroupsRepository, type LookupRow } from '../groups/groups.repository';
import { memberWriteLookups, type JoinLookup, type MemberWriteLookup, type MemberWriteLookups } from './member-write-lookups';
import { GroupOwnership } from '../groups/group-ownership';
import type { LookedUpGroup } from '../groups/group-row';
import { verifyPasscode } from '../groups/passcode';
import { bannedError } from '../bans/ban-checker';
import { IdentityService } from '../identity/identity.service';
import { recordOperatorAction } from '../operators/operator-audit';
import { GameConfigService } from '../game-config/game-config.service';
import { PermissionCache } from '../permissions/permission-cache';
import type { JoinGroupDto, KickDto, ListMembersQueryDto, MemberDto, UpdateMemberDto } from './dto/member.dto';
import { MEMBER_ID_FIELD, MEMBER_JOINED_AT_FIELD, memberJson } from './member-json';
import type { MemberRow } from './member-row';
import { toMemberDto } from './member-view';
import { deactivateAlongside, memberAlongside, MembersRepository, alongsideMember, type MemberChanges } from './members.repository';
import { MembershipService } from './membership.service';
import { PasscodeLimiter } from './passcode-limiter';
import { ReadSource } from '../db/replica/read-source';
import { notifiedGroup } from '../notifications/notification-data';

/** SPEC §8: the user memberships listing returns at most this many rows. */
export const USER_MEMBERSHIPS_CAP = 1000;

/** What a join's transaction ends with: the member, or a passcode to check before trying again. */
type JoinOutcome = { member: MemberDto } | { passcodeHash: string; groupId: string };

/** Membership (SPEC §3 Member status, §4 Members): join, leave, kick, reads and member updates. */
@Injectable()
export class MembersService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly members: MembersRepository,
    private readonly membership: MembershipService,
    private readonly identity: IdentityService,
    private readonly passcodes: PasscodeLimiter,
    private readonly permissionCache: PermissionCache,
    private readonly ownership: GroupOwnership,
    private readonly configs: GameConfigService,
    @Inject(SETTINGS) private readonly settings: Settings,
    groups: GroupsRepository,
  ) {
    ({ join: this.joinLookups, leave: this.leaveLookups } = memberWriteLookups(groups));
  }

  /** The join's and the leave's first statements, which the writes of a batch share (UnitOfWork.runShared). */
  private readonly joinLookups: MemberWriteLookups<JoinLookup>;
  private readonly leaveLookups: MemberWriteLookups<MemberWriteLookup>;

  /**
   * Public join, in one transaction when the group has no passcode. A passcode is checked before
   * any identity is resolved, so a wrong one creates nothing (SPEC §4); its hash is slow by
   * design, so it is checked outside the transaction (the group is not held locked meanwhile),
   * and the join goes ahead if the passcode is still the one checked.
   */
  async join(game: GameContext, groupId: string, dto: JoinGroupDto): Promise<MemberDto> {
    let checked: string | null = null;
    for (;;) {
      const request: JoinLookup = { gameId: game.gameId, groupId, userId: dto.userId, checked };
      const outcome = await this.uow.runShared<JoinLookup, LookupRow | null, JoinOutcome>({
        ...this.joinLookups.write(request),
        then: async (tx, row) => {
          const locked = liveLookedUp(row);
          const { group } = locked;
          if (group.visibility === 'secret') throw ApiError.notFound('group');
          if (group.visibility !== 'public') {
            throw new ApiError('permission_denied', 'this group is invite-only: an invitation is required to join it');
          }
          if (group.passcodeHash && group.passcodeHash !== request.checked) return { passcodeHash: group.passcodeHash, groupId: group.id };
          if (locked.banScope) throw bannedError(locked.banScope);
          return { member: (await this.membership.activateAlongside(tx, group, dto.userId, { via: 'public-join' }, locked)).dto };
        },
      });
      if ('member' in outcome) return outcome.member;
      if (dto.passcode === undefined || dto.passcode === null) {
        throw new ApiError('passcode_required', 'this group requires a passcode to join');
      }
      this.passcodes.take(outcome.groupId, dto.userId);
      if (!(await verifyPasscode(dto.passcode, outcome.passcodeHash))) {
        throw new ApiError('passcode_invalid', 'the passcode is wrong');
      }
      checked = outcome.passcodeHash;
    }
  }

  /** The owner may leave only as the last active member (EXTENSIONS X6): 409 owner_must_transfer otherwise. */
  async leave(game: GameContext, groupId: string, userId: string): Promise<MemberDto> {
    return this.uow.runShared<MemberWriteLookup, LookupRow | null, MemberDto>({
      ...this.leaveLookups.write({ gameId: game.gameId, groupId, userId }),
      then: async (tx, row) => {
        const { group, member, changed } = await this.departed(tx, liveLookedUp(row));
        if (changed) {
          await this.ownership.departing(tx, group, member.svcUserId);
          this.recordDeparture(tx, group, member, 'member.left', member.svcUserId, { memberId: member.id, reason: 'left' });
        }
        return toMemberDto(member);
      },
    });
  }

  /** `by`: the operator of an admin request, recorded in the operator audit when the kick changes something. */
  async kick(game: Pick<GameContext, 'gameId'>, groupId: string, userId: string, dto: KickDto, by?: ActingOperator): Promise<MemberDto> {
    return this.uow.run(async (tx) => {
      const { group, member, changed } = await this.depart(tx, game, groupId, userId, 'kicked');
      if (changed) {
        const reason = dto.reason ?? null;
        await this.ownership.departing(tx, group, member.svcUserId);
        this.recordDeparture(tx, group, member, 'member.kicked', null, { memberId: member.id, reason });
        tx.notifyPlayer({ gameId: group.gameId, kind: 'member.kicked', svcUserId: member.svcUserId, groupId: group.id, data: { group: notifiedGroup(group), reason } });
        if (by) {
          await recordOperatorAction(tx.manager, by, { action: 'member.kicked', gameId: group.gameId, targetId: member.userId, details: { groupId: group.id, memberId: member.id, reason } });
        }
      }
      return toMemberDto(member);
    });
  }

  async list(game: GameContext, groupId: string, q: ListMembersQueryDto): Promise<PageJson> {
    const status = q.status === 'all' ? undefined : q.status;
    const scope = `members:${groupId}:${status ?? 'all'}${q.permission === undefined ? '' : `:${scopeDigest(q.permission)}`}`;
    let limit: number;
    let after: ReturnType<typeof decodeKeyset>;
    try {
      limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
      after = decodeKeyset(q.cursor, scope);
    } catch (err) {
      // A missing group is a 404 whatever else is wrong with the request.
      await this.lookup.liveHead(this.readDb.ds.manager, game.gameId, groupId);
      throw err;
    }
    // A key the game denies to timed-out members leaves them out (EXTENSIONS X10), as the check would.
    const timeoutDenies = q.permission !== undefined && (await this.configs.timeoutDeniedPermissions(game.gameId)).includes(q.permission);
    const rows = isUuid(groupId)
      ? await this.members.pageOfLiveGroup(this.readDb.ds, game.gameId, groupId, {
          status,
          permission: q.permission,
          timeoutDenies,
          after: after && { joinedAt: after.at, id: after.id },
          limit,
        })
      : null;
    if (!rows) throw ApiError.notFound('group');
    const now = Date.now();
    return toPageJson(rows, limit, (r) => memberJson(r, now), (r) => encodeKeyset(scope, new Date(Number(r[MEMBER_JOINED_AT_FIELD])), r[MEMBER_ID_FIELD]));
  }

  async getInGroup(game: Pick<GameContext, 'gameId'>, groupId: string, userId: string): Promise<MemberDto> {
    const { member } = await this.requireMember(this.readDb.ds.manager, game, groupId, userId, false);
    return toMemberDto(member);
  }

  async get(game: GameContext, memberId: string): Promise<MemberDto> {
    const row = isUuid(memberId) ? await this.members.findInGame(this.readDb.ds.manager, game.gameId, memberId) : null;
    if (!row || row.groupDeleted) throw ApiError.notFound('member');
    return toMemberDto(row);
  }

  /** The user's memberships in live groups of the calling game; an unknown user has none. */
  async forUser(game: GameContext, userId: string, gameId: string | undefined): Promise<MemberDto[]> {
    if (gameId !== undefined && gameId !== game.gameId) throw ApiError.badRequest('gameId must be the game of the API key');
    const svcUserId = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    if (!svcUserId) return [];
    const rows = await this.members.listForUser(this.readDb.ds.manager, svcUserId, game.gameId, USER_MEMBERSHIPS_CAP);
    return rows.map((r) => toMemberDto(r));
  }

  /** Notes and metadata (DECISIONS §7): a diff of the supplied fields, audited only on change. */
  async update(game: GameContext, groupId: string, userId: string, dto: UpdateMemberDto): Promise<MemberDto> {
    const supplied = (Object.keys(dto) as (keyof UpdateMemberDto)[]).filter((k) => dto[k] !== undefined);
    if (!supplied.length) throw ApiError.badRequest('body must hold at least one of metadata, notesPublic, notesPrivate');
    return this.uow.run(async (tx) => {
      const { group, member } = await this.requireMember(tx.manager, game, groupId, userId, true);
      const changes: MemberChanges = {};
      const before: Record<string, unknown> = {};
      const after: Record<string, unknown> = {};
      for (const key of ['metadata', 'notesPublic', 'notesPrivate'] as const) {
        const value = dto[key];
        if (value === undefined) continue;
        if (key !== 'metadata' && value === member[key]) continue;
        (changes as Record<string, unknown>)[key] = value;
        before[key] = member[key];
        after[key] = value;
      }
      if (!Object.keys(changes).length) return toMemberDto(member);
      const updated = await this.members.update(tx.manager, member.id, changes);
      const dtoOut = toMemberDto(updated);
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        action: 'member.updated',
        targetId: updated.userId,
        payload: { memberId: updated.id, before, after },
      });
      tx.emit({ type: 'member.updated', gameId: game.gameId, groupId: group.id, data: { member: dtoOut, changes: Object.keys(after) } });
      return dtoOut;
    });
  }

  /** The group (locked for writers), then the member; a missing identity or row is the same 404. */
  private async requireMember(m: EntityManager, game: Pick<GameContext, 'gameId'>, groupId: string, userId: string, lock: boolean) {
    const { group, alongside } = await this.lookup.liveWithUser(m, game.gameId, groupId, userId, { lock, with: memberAlongside() });
    if (!alongside) throw ApiError.notFound('member');
    return { group, member: alongsideMember<MemberRow>(alongside) };
  }

  /**
   * Ends an active membership in the group lookup's statement; a member in any other status is
   * answered as is (changed false), and someone who never was a member is 404.
   */
  private async depart(tx: Tx, game: Pick<GameContext, 'gameId'>, groupId: string, userId: string, status: 'left' | 'kicked') {
    return this.departed(tx, await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, userId, { lock: true, with: deactivateAlongside(status) }));
  }

  /** What a departure's lookup found: the member it made leave, or the one it found in another status. */
  private async departed(tx: Tx, { group, svcUserId, alongside }: LookedUp) {
    if (alongside) return { group, member: alongsideMember<MemberRow>(alongside), changed: true };
    const member = svcUserId ? await this.members.findByUser(tx.manager, group.id, svcUserId) : null;
    if (!member) throw ApiError.notFound('member');
    return { group, member, changed: false };
  }

  private recordDeparture(
    tx: Tx,
    group: LookedUpGroup,
    member: MemberRow,
    action: 'member.left' | 'member.kicked',
    actorUserId: string | null,
    payload: Record<string, unknown>,
  ) {
    tx.audit({ gameId: group.gameId, groupId: group.id, actorUserId, action, targetId: member.userId, payload });
    this.permissionCache.invalidateOnCommit(tx, group.id);
    tx.emit({
      type: action,
      gameId: group.gameId,
      groupId: group.id,
      data: { member: toMemberDto(member), ...(action === 'member.kicked' ? { reason: payload.reason } : {}) },
    });
  }
}
