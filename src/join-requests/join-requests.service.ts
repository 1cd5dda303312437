import { Inject, Injectable } from '@nestjs/common';
import { BanChecker } from '../bans/ban-checker';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { GroupLookup } from '../groups/group-lookup';
import type { GroupRow } from '../groups/group-row';
import { IdentityService } from '../identity/identity.service';
import { MembersRepository } from '../members/members.repository';
import { MembershipService } from '../members/membership.service';
import { recordOperatorAction } from '../operators/operator-audit';
import type {
  ApprovedJoinRequestDto,
  ApproveJoinRequestDto,
  CreateJoinRequestDto,
  DeclineJoinRequestDto,
  JoinRequestDto,
  JoinRequestFilter,
  ListGroupJoinRequestsQueryDto,
  ListUserJoinRequestsQueryDto,
} from './dto/join-request.dto';
import type { JoinRequestRow, JoinRequestStatus } from './join-request-row';
import { toJoinRequestDto } from './join-request-view';
import { JoinRequestsRepository } from './join-requests.repository';
import { ReadSource } from '../db/replica/read-source';
import { notifiedGroup } from '../notifications/notification-data';

/**
 * Join requests (EXTENSIONS X3). Who may decide is the game backend's call, as everywhere
 * (SPEC §1.2): the API key authorizes; `actorUserId` only records who decided.
 *
 * Every writer locks the group row first (as joins, accepts and bans do), so a request and a
 * concurrent join, accept or group ban of the same user see each other; the conditional update
 * of the request then settles concurrent deciders.
 */
@Injectable()
export class JoinRequestsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly uow: UnitOfWork,
    private readonly lookup: GroupLookup,
    private readonly requests: JoinRequestsRepository,
    private readonly members: MembersRepository,
    private readonly membership: MembershipService,
    private readonly identity: IdentityService,
    private readonly bans: BanChecker,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async create(game: GameContext, groupId: string, dto: CreateJoinRequestDto): Promise<JoinRequestDto> {
    return this.uow.run(async (tx) => {
      const group = await this.lookup.liveHead(tx.manager, game.gameId, groupId, true);
      // A secret group does not disclose that it exists (SPEC §7 rule 2).
      if (group.visibility === 'secret') throw ApiError.notFound('group');
      if (group.visibility === 'public') throw ApiError.badRequest('this group is public: join it directly (POST /v1/groups/:id/join)');
      // Checked in the order of a join (SPEC §4): bans, then membership.
      await this.bans.assertNotBanned(tx.manager, game.gameId, group.id, dto.userId);
      const svcUserId = await this.identity.resolveOrCreate(tx.manager, game.gameId, dto.userId);
      const member = await this.members.findByUser(tx.manager, group.id, svcUserId);
      if (member?.status === 'active') throw new ApiError('already_member', `${dto.userId} is already a member of this group`);
      const row = await this.requests.insertPending(tx.manager, {
        gameId: game.gameId,
        groupId: group.id,
        svcUserId,
        userId: dto.userId,
        message: dto.message ?? null,
      });
      if (!row) throw new ApiError('join_request_pending', `${dto.userId} already has a pending request to join this group`);
      const out = toJoinRequestDto(row);
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        actorUserId: svcUserId,
        action: 'join_request.created',
        targetId: dto.userId,
        payload: { joinRequestId: row.id, message: row.message },
      });
      tx.emit({ type: 'join_request.created', gameId: game.gameId, groupId: group.id, data: { joinRequest: out } });
      return out;
    });
  }

  /**
   * The user becomes an active member exactly as by an accepted invitation (ban re-checked).
   * `by`: the operator of an admin request, recorded in the operator audit (and no actor user).
   */
  async approve(game: Pick<GameContext, 'gameId'>, id: string, dto: ApproveJoinRequestDto, by?: ActingOperator): Promise<ApprovedJoinRequestDto> {
    return this.uow.run(async (tx) => {
      const { request, group, actorSvcId } = await this.prepareDecision(tx, game, id, dto.actorUserId);
      const approved = await this.decide(tx, request, 'approved', dto.actorUserId ?? null);
      await this.bans.assertNotBanned(tx.manager, game.gameId, group.id, approved.userId);
      const { dto: member } = await this.membership.activate(tx, group, approved.userId, { via: 'join-request', joinRequestId: approved.id });
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        actorUserId: actorSvcId,
        action: 'join_request.approved',
        targetId: approved.userId,
        payload: { joinRequestId: approved.id, memberId: member.id },
      });
      tx.notifyPlayer({
        gameId: game.gameId,
        kind: 'join_request.approved',
        svcUserId: approved.svcUserId,
        groupId: group.id,
        actorUserId: actorSvcId,
        data: { group: notifiedGroup(group), joinRequestId: approved.id, message: approved.message },
      });
      if (by) {
        await recordOperatorAction(tx.manager, by, {
          action: 'join_request.approved',
          gameId: game.gameId,
          targetId: approved.id,
          details: { groupId: group.id, userId: approved.userId, memberId: member.id },
        });
      }
      return { joinRequest: toJoinRequestDto(approved), member };
    });
  }

  async decline(game: Pick<GameContext, 'gameId'>, id: string, dto: DeclineJoinRequestDto, by?: ActingOperator): Promise<JoinRequestDto> {
    return this.uow.run(async (tx) => {
      const { request, group, actorSvcId } = await this.prepareDecision(tx, game, id, dto.actorUserId);
      const declined = await this.decide(tx, request, 'declined', dto.actorUserId ?? null);
      const out = toJoinRequestDto(declined);
      const reason = dto.reason ?? null;
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        actorUserId: actorSvcId,
        action: 'join_request.declined',
        targetId: declined.userId,
        payload: { joinRequestId: declined.id, reason },
      });
      tx.emit({ type: 'join_request.declined', gameId: game.gameId, groupId: group.id, data: { joinRequest: out, reason } });
      tx.notifyPlayer({
        gameId: game.gameId,
        kind: 'join_request.declined',
        svcUserId: declined.svcUserId,
        groupId: group.id,
        actorUserId: actorSvcId,
        data: { group: notifiedGroup(group), joinRequestId: declined.id, message: declined.message, reason },
      });
      if (by) {
        await recordOperatorAction(tx.manager, by, {
          action: 'join_request.declined',
          gameId: game.gameId,
          targetId: declined.id,
          details: { groupId: group.id, userId: declined.userId, reason },
        });
      }
      return out;
    });
  }

  /** The requester withdraws: they are the one who decided, and the audit actor. */
  async cancel(game: GameContext, id: string): Promise<JoinRequestDto> {
    return this.uow.run(async (tx) => {
      const { group, request } = await this.prepareDecision(tx, game, id, undefined);
      const cancelled = await this.decide(tx, request, 'cancelled', request.userId);
      tx.audit({
        gameId: game.gameId,
        groupId: group.id,
        actorUserId: cancelled.svcUserId,
        action: 'join_request.cancelled',
        targetId: cancelled.userId,
        payload: { joinRequestId: cancelled.id },
      });
      return toJoinRequestDto(cancelled);
    });
  }

  async listForGroup(game: Pick<GameContext, 'gameId'>, groupId: string, q: ListGroupJoinRequestsQueryDto): Promise<Page<JoinRequestDto>> {
    const group = await this.lookup.liveHead(this.readDb.ds.manager, game.gameId, groupId);
    const filter = q.status ?? 'pending';
    const scope = `join-requests:${group.id}:${filter}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const rows = await this.requests.pageOfGroup(this.readDb.ds.manager, group.id, { status: statusOf(filter), after, limit });
    return toPage(rows, limit, toJoinRequestDto, (r: JoinRequestRow) => encodeKeyset(scope, r.createdAt, r.id));
  }

  /** A user's requests in the live groups of the game; a user the game has never seen has none. */
  async listForUser(game: GameContext, userId: string, q: ListUserJoinRequestsQueryDto): Promise<Page<JoinRequestDto>> {
    const filter = q.status ?? 'all';
    const scope = `user-join-requests:${game.gameId}:${scopeDigest(userId)}:${filter}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const svcUserId = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    if (!svcUserId) return { items: [], nextCursor: null };
    const rows = await this.requests.pageOfUser(this.readDb.ds.manager, game.gameId, svcUserId, { status: statusOf(filter), after, limit });
    return toPage(rows, limit, toJoinRequestDto, (r: JoinRequestRow) => encodeKeyset(scope, r.createdAt, r.id));
  }

  /**
   * The request (404 when missing, of another game or of a deleted group), its group locked as
   * every writer of the group locks it, and the actor's identity (created on first use).
   */
  private async prepareDecision(
    tx: Tx,
    game: Pick<GameContext, 'gameId'>,
    id: string,
    actorUserId: string | null | undefined,
  ): Promise<{ request: JoinRequestRow; group: GroupRow; actorSvcId: string | null }> {
    const request = isUuid(id) ? await this.requests.findInGame(tx.manager, game.gameId, id) : null;
    if (!request || request.groupDeleted) throw ApiError.notFound('join request');
    const group = await this.lookup.live(tx.manager, game.gameId, request.groupId, true).catch(() => {
      throw ApiError.notFound('join request');
    });
    const actorSvcId = actorUserId === undefined || actorUserId === null ? null : await this.identity.resolveOrCreate(tx.manager, game.gameId, actorUserId);
    return { request, group, actorSvcId };
  }

  /** Answers a pending request; one that is no longer pending is 410, whoever closed it. */
  private async decide(
    tx: Tx,
    request: JoinRequestRow,
    status: Exclude<JoinRequestStatus, 'pending'>,
    decidedBy: string | null,
  ): Promise<JoinRequestRow> {
    const row = await this.requests.decide(tx.manager, request.id, status, decidedBy);
    if (row) return row;
    const now = await this.requests.findInGame(tx.manager, request.gameId, request.id);
    throw new ApiError('join_request_closed', `this join request is no longer pending: it was ${now?.status ?? 'removed'}`);
  }
}

const statusOf = (filter: JoinRequestFilter): JoinRequestStatus | undefined => (filter === 'all' ? undefined : filter);
