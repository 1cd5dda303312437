import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { iso } from '../common/time';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import { IdentityService } from '../identity/identity.service';
import { parseExpiresIn } from '../invitations/expires-in';
import { recordOperatorAction } from '../operators/operator-audit';
import { PermissionCache } from '../permissions/permission-cache';
import type { MemberDto } from './dto/member.dto';
import type { LiftTimeoutDto, TimeoutMemberDto } from './dto/member-timeout.dto';
import type { MemberRow } from './member-row';
import { liftTimeoutAlongside, timeoutAlongside } from './member-timeouts.repository';
import { toMemberDto } from './member-view';
import { alongsideMember } from './members.repository';

/** EXTENSIONS X10: a timeout lasts 28 days at most, as Discord's does. */
export const MAX_TIMEOUT_MS = 28 * 86_400_000;

/** When a timeout given as `duration` from `now` ends; 400 naming the field for any other form or more than 28d. */
export function timeoutEnd(duration: string, now: number): Date {
  const until = parseExpiresIn(duration, now, 'duration');
  if (until.getTime() - now > MAX_TIMEOUT_MS) throw ApiError.badRequest('duration must be at most 28d');
  return until;
}

/**
 * Member timeouts (EXTENSIONS X10): while one is in force the check denies the keys of the game's
 * `moderation.timeoutDeniedPermissions` (see grant-profile.ts); the grant sweeper writes its
 * `member.timeout_lifted` once it ends. `by`: the operator of an admin request, in the operator audit.
 */
@Injectable()
export class MemberTimeoutsService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly identity: IdentityService,
    private readonly permissionCache: PermissionCache,
  ) {}

  async timeout(game: Pick<GameContext, 'gameId'>, groupId: string, userId: string, dto: TimeoutMemberDto, by?: ActingOperator): Promise<MemberDto> {
    let until: Date;
    try {
      until = timeoutEnd(dto.duration, Date.now());
    } catch (err) {
      // A group that is not there (or another game's) is a 404 whatever else is wrong with the request.
      await this.lookup.liveHead(this.ds.manager, game.gameId, groupId);
      throw err;
    }
    const reason = dto.reason ?? null;
    return this.uow.run(async (tx) => {
      const { group, alongside } = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, userId, { lock: true, with: timeoutAlongside(until) });
      if (!alongside) throw new ApiError('not_a_member', `${userId} is not an active member of this group`);
      const member = toMemberDto(alongsideMember<MemberRow>(alongside));
      await this.record(tx, 'member.timed_out', { gameId: game.gameId, groupId: group.id, userId, member, until, reason, actor: dto.actorUserId, by });
      return member;
    });
  }

  /** Lifts the timeout in force; with none in force the member comes back as it is and nothing is written. */
  async lift(game: Pick<GameContext, 'gameId'>, groupId: string, userId: string, dto: LiftTimeoutDto, by?: ActingOperator): Promise<MemberDto> {
    const reason = dto.reason ?? null;
    return this.uow.run(async (tx) => {
      const now = new Date();
      const { group, alongside } = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, userId, { lock: true, with: liftTimeoutAlongside(now) });
      if (!alongside) throw ApiError.notFound('member');
      const liftedUntil = alongside.liftedUntil === null ? null : new Date(alongside.liftedUntil as string);
      const row = alongsideMember<MemberRow>(alongside);
      if (liftedUntil === null) return toMemberDto(row);
      const member = toMemberDto({ ...row, timedOutUntil: null });
      await this.record(tx, 'member.timeout_lifted', { gameId: game.gameId, groupId: group.id, userId, member, until: liftedUntil, reason, actor: dto.actorUserId, by });
      return member;
    });
  }

  /**
   * A change's audit entry (its actor the moderator named, if any), its group event `{ member,
   * until, reason }`, the group's cached answers dropped at commit, and the operator audit entry of
   * an admin request.
   */
  private async record(
    tx: Tx,
    action: 'member.timed_out' | 'member.timeout_lifted',
    c: { gameId: string; groupId: string; userId: string; member: MemberDto; until: Date; reason: string | null; actor?: string; by?: ActingOperator },
  ): Promise<void> {
    const actorUserId = c.actor ? await this.identity.resolveOrCreate(tx.manager, c.gameId, c.actor) : null;
    const details = { memberId: c.member.id, until: iso(c.until), reason: c.reason };
    tx.audit({ gameId: c.gameId, groupId: c.groupId, actorUserId, action, targetId: c.userId, payload: details });
    tx.emit({ type: action, gameId: c.gameId, groupId: c.groupId, data: { member: c.member, until: details.until, reason: c.reason } });
    this.permissionCache.invalidateOnCommit(tx, c.groupId);
    if (c.by) await recordOperatorAction(tx.manager, c.by, { action, gameId: c.gameId, targetId: c.userId, details: { groupId: c.groupId, ...details } });
  }
}
