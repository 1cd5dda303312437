import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page, type PageQueryDto } from '../common/pagination/page';
import { iso } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { BanChecker, bannedError } from '../bans/ban-checker';
import { GroupLookup } from '../groups/group-lookup';
import { alongsideOf } from '../groups/groups.repository';
import { IdentityService } from '../identity/identity.service';
import { lockUsersForWrite } from '../identity/user-lock';
import type { MemberDto } from '../members/dto/member.dto';
import { invitedActivationAlongside, type ActivatedRow } from '../members/members.repository';
import { MembershipService } from '../members/membership.service';
import { parseBulkRow, type BulkRow } from './bulk-invite';
import type {
  BulkInviteResponseDto,
  BulkInviteResultDto,
  CreateInvitationDto,
  InvitationDto,
  InvitationWithGroupDto,
  ListInvitationsQueryDto,
} from './dto/invitation.dto';
import { parseExpiresIn } from './expires-in';
import type { InvitationRow, InvitationRowWithGroup } from './invitation-row';
import { toInvitationDto, toInvitationWithGroupDto } from './invitation-view';
import { alongsideInvitation, createdAlongside, InvitationsRepository, redeemAlongside, type InvitationWithGroup } from './invitations.repository';
import { ReadSource } from '../db/replica/read-source';
import { notifiedGroup } from '../notifications/notification-data';
import type { GroupHead } from '../groups/group-row';

const CODE = /^[0-9a-fA-F]{16}$/;

/** Invitations (SPEC §3 Invitation, §4; EXTENSIONS X6): create, list, preview, inbox, accept, decline, revoke. */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly invitations: InvitationsRepository,
    private readonly membership: MembershipService,
    private readonly identity: IdentityService,
    private readonly bans: BanChecker,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async create(game: GameContext, groupId: string, dto: CreateInvitationDto): Promise<InvitationDto> {
    if (dto.maxUses !== undefined && dto.targetUserId !== undefined) {
      throw ApiError.badRequest('maxUses is for open codes only: omit it, or omit targetUserId');
    }
    const expiresAt = dto.expiresIn === undefined ? null : parseExpiresIn(dto.expiresIn, Date.now());
    const inviterId = dto.invitedByUserId ?? null;
    const draft = { roleId: dto.roleId ?? null, targetUserId: dto.targetUserId ?? null, invitedByUserId: inviterId, expiresAt, maxUses: dto.maxUses ?? 1 };
    return this.uow.run(async (tx) => {
      // One statement: the group (its lock shared, as a member write's), the inviter's internal id
      // and the insert; the target's lock rides with it (EXTENSIONS X7, see lockUsersForWrite).
      const looked = await this.lookup.liveWithUser(tx.manager, game.gameId, groupId, inviterId, {
        lock: true,
        counted: false,
        with: createdAlongside(draft),
        alsoLocking: draft.targetUserId === null ? [] : [draft.targetUserId],
      });
      const inv = looked.alongside
        ? alongsideInvitation(looked.alongside)
        : await this.invitations.insert(tx.manager, { ...draft, gameId: game.gameId, groupId: looked.group.id });
      // An inviter the game meets only now is created here, as before (SPEC §1.4).
      const inviterSvcId = inviterId === null ? null : (looked.svcUserId ?? (await this.identity.resolveOrCreate(tx.manager, game.gameId, inviterId)));
      const out = toInvitationDto(inv);
      this.recordCreated(tx, game, looked.group, inv, out, inviterSvcId);
      return out;
    });
  }

  /**
   * One targeted invitation per row (DECISIONS §4), in one transaction; malformed rows and banned
   * users come back as per-row errors so one bad row does not sink the others.
   */
  async bulkInvite(game: GameContext, groupId: string, rows: unknown[], invitedByUserId?: string): Promise<BulkInviteResponseDto> {
    const now = Date.now();
    const parsed = rows.map((row, index) => parseBulkRow(row, index, now));
    return this.uow.run(async (tx) => {
      const group = await this.lookup.liveHead(tx.manager, game.gameId, groupId, 'share');
      const inviter = await this.inviter(tx, game, invitedByUserId);
      const valid = parsed.filter((r): r is BulkRow => !('error' in r));
      // As a single targeted invitation: an erasure of an invitee runs before or after, never across (their notification).
      await lockUsersForWrite(tx.manager, game.gameId, valid.map((r) => r.userId));
      const banned = await this.bans.scopes(tx.manager, game.gameId, group.id, [...new Set(valid.map((r) => r.userId))]);
      const results: BulkInviteResultDto[] = [];
      for (const row of parsed) {
        if ('error' in row) {
          results.push(row);
          continue;
        }
        const scope = banned.get(row.userId);
        if (scope) {
          const err = bannedError(scope);
          results.push({ index: row.index, userId: row.userId, error: { code: err.code, message: err.message } });
          continue;
        }
        const inv = await this.invitations.insert(tx.manager, {
          gameId: game.gameId,
          groupId: group.id,
          roleId: row.roleId,
          targetUserId: row.userId,
          invitedByUserId: inviter.userId,
          expiresAt: row.expiresAt,
          maxUses: 1,
        });
        const out = toInvitationDto(inv);
        this.recordCreated(tx, game, group, inv, out, inviter.svcUserId);
        results.push({ index: row.index, userId: row.userId, invitation: out });
      }
      return { results };
    });
  }

  async list(game: GameContext, groupId: string, q: ListInvitationsQueryDto): Promise<Page<InvitationDto>> {
    const group = await this.lookup.liveHead(this.readDb.ds.manager, game.gameId, groupId);
    const includeUsed = q.includeUsed === 'true';
    const includeExpired = q.includeExpired === 'true';
    const scope = `invitations:${group.id}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const rows = await this.invitations.list(this.readDb.ds.manager, group.id, {
      includeUsed,
      includeExpired,
      after: after && { createdAt: after.at, id: after.id },
      limit,
    });
    return toPage(rows, limit, toInvitationDto, (r: InvitationRow) => encodeKeyset(scope, r.createdAt, r.id));
  }

  /** Public preview: any live group's code, expired or not, with what the group is (EXTENSIONS X6). */
  async preview(code: string): Promise<InvitationWithGroupDto> {
    const inv = CODE.test(code) ? await this.invitations.findPreview(this.ds.manager, code.toLowerCase()) : null;
    if (!inv || inv.groupDeleted) throw ApiError.notFound('invitation');
    return toInvitationWithGroupDto(inv);
  }

  /**
   * A user's inbox (EXTENSIONS X6): what they can accept now in this game, newest first. Matched on
   * the stored target id, so a user the game knows from nothing else has theirs listed, and an id
   * with none gets an empty page. Bans, membership and caps are checked by the accept, not here.
   */
  async inbox(game: GameContext, userId: string, q: PageQueryDto): Promise<Page<InvitationWithGroupDto>> {
    const scope = `user-invitations:${game.gameId}:${scopeDigest(userId)}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const rows = await this.invitations.inbox(this.readDb.ds.manager, game.gameId, userId, {
      after: after && { createdAt: after.at, id: after.id },
      limit,
    });
    return toPage(rows, limit, toInvitationWithGroupDto, (r: InvitationRowWithGroup) => encodeKeyset(scope, r.createdAt, r.id));
  }

  /**
   * Redeems a code: the row lock serialises the accepts of one code, so a code with N uses admits
   * exactly N users and every later accept sees it used (410). Ban checks run before redemption;
   * an accept that fails (banned, already a member) counts no use.
   */
  async accept(game: GameContext, code: string, userId: string): Promise<MemberDto> {
    return this.uow.run(async (tx) => {
      const inv = redeemable(await this.inGame(tx.manager, game, code, true));
      if (inv.targetUserId !== null && inv.targetUserId !== userId) {
        throw new ApiError('permission_denied', 'this invitation is for another user');
      }
      // A user the game knows is counted and made a member by the lookup's statement.
      const locked = await this.lookup.liveWithUser(tx.manager, game.gameId, inv.groupId, userId, {
        lock: true,
        banScope: true,
        admission: true,
        with: alongsideOf(redeemAlongside(inv.id), invitedActivationAlongside(userId)),
      });
      if (locked.banScope) throw bannedError(locked.banScope);
      const via = { invitationId: inv.id, code: inv.code };
      const { row, dto } = await this.membership.activateAlongside<ActivatedRow & { redeemed?: boolean }>(tx, locked.group, userId, via, locked);
      // A new user's accept is counted here; a known one's was, or was not, in the lookup's statement.
      const counted = locked.svcUserId ? row.redeemed === true : (await this.invitations.redeem(tx.manager, inv.id, row.svcUserId)) !== null;
      if (!counted) throw usedError();
      return dto;
    });
  }

  /**
   * Declines a code: it is used up, with no audit entry (SPEC §4). A code with several uses is
   * shared, so one user's refusal cannot use it up (EXTENSIONS X4): 400, whatever its state.
   */
  async decline(game: GameContext, code: string, userId: string | undefined): Promise<void> {
    await this.uow.run(async (tx) => {
      const found = await this.inGame(tx.manager, game, code, true);
      if (found.maxUses > 1) {
        throw ApiError.badRequest('an invitation with several uses cannot be declined; revoke it to stop further accepts');
      }
      const inv = redeemable(found);
      if (userId !== undefined && inv.targetUserId !== null && inv.targetUserId !== userId) {
        throw new ApiError('permission_denied', 'this invitation is for another user');
      }
      const usedBy = userId === undefined ? null : await this.identity.find(tx.manager, game.gameId, userId);
      await this.invitations.markUsed(tx.manager, inv.id, usedBy);
    });
  }

  /** Revokes an unused code (removed; a second call is 404); a used code is kept, 204 every time. */
  async revoke(game: GameContext, code: string): Promise<void> {
    await this.uow.run(async (tx) => {
      const inv = await this.inGame(tx.manager, game, code, true);
      if (inv.usedAt) return;
      await this.invitations.delete(tx.manager, inv.id);
      tx.audit({
        gameId: game.gameId,
        groupId: inv.groupId,
        action: 'invitation.revoked',
        targetId: inv.targetUserId,
        payload: { invitationId: inv.id, code: inv.code },
      });
      tx.emit({ type: 'invitation.revoked', gameId: game.gameId, groupId: inv.groupId, data: { invitation: toInvitationDto(inv) } });
    });
  }

  /**
   * The inviter of EXTENSIONS X6, named like the actor of a ban (SPEC §1.4) or of a join request
   * decision: the identity is created on first use and is the audit entry's actor.
   */
  private async inviter(tx: Tx, game: GameContext, userId: string | null | undefined): Promise<{ userId: string | null; svcUserId: string | null }> {
    if (userId === undefined || userId === null) return { userId: null, svcUserId: null };
    return { userId, svcUserId: await this.identity.resolveOrCreate(tx.manager, game.gameId, userId) };
  }

  /** The audit entry, the event, and the invitee's notification (EXTENSIONS X9) of a new invitation. */
  private recordCreated(tx: Tx, game: GameContext, group: GroupHead, inv: InvitationRow, out: InvitationDto, actorSvcId: string | null): void {
    const groupId = group.id;
    tx.audit({
      gameId: game.gameId,
      groupId,
      actorUserId: actorSvcId,
      action: 'member.invited',
      targetId: inv.targetUserId,
      payload: {
        invitationId: inv.id,
        code: inv.code,
        targetUserId: inv.targetUserId,
        roleId: inv.roleId,
        expiresAt: out.expiresAt,
        invitedByUserId: inv.invitedByUserId,
      },
    });
    tx.emit({ type: 'invitation.created', gameId: game.gameId, groupId, data: { invitation: out } });
    // Only a targeted invitation names its player; one the game has never seen gets none (see NotificationInput).
    if (inv.targetUserId === null) return;
    tx.notifyPlayer({
      gameId: game.gameId,
      kind: 'invitation.received',
      externalUserId: inv.targetUserId,
      groupId,
      actorUserId: actorSvcId,
      data: { group: notifiedGroup(group), invitationId: inv.id, code: inv.code, expiresAt: out.expiresAt, roleId: inv.roleId },
    });
  }

  private async inGame(m: EntityManager, game: GameContext, code: string, lock: boolean): Promise<InvitationWithGroup> {
    const inv = CODE.test(code) ? await this.invitations.findByCode(m, code.toLowerCase(), lock) : null;
    if (!inv || inv.gameId !== game.gameId || inv.groupDeleted) throw ApiError.notFound('invitation');
    return inv;
  }
}

const usedError = () => new ApiError('invitation_used', 'this invitation has already been used');

/** The code, when it is neither used up nor expired (used is reported first, SPEC §3). */
function redeemable(inv: InvitationWithGroup): InvitationWithGroup {
  if (inv.usedAt) throw usedError();
  if (inv.expired) throw new ApiError('invitation_expired', `this invitation expired at ${iso(inv.expiresAt)}`);
  return inv;
}
