import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { isoNN } from '../common/time';
import { UnitOfWork, type Tx } from '../db/unit-of-work';
import { IdentityService } from '../identity/identity.service';
import type { AcceptFriendRequestResultDto, FriendRequestsDto, SendFriendRequestResultDto } from './dto/friends.dto';
import { friendLockKeys } from './friend-locks';
import type { RelationshipRow } from './friend-rows';
import { toFriendshipDto, toRequestDto } from './friend-view';
import { FriendsGate } from './friends-gate';
import { FriendsRepository } from './friends.repository';
import { resolveParties } from './parties';
import { ReadSource } from '../db/replica/read-source';

const UNIQUE_VIOLATION = '23505';

/**
 * Friend requests (SPEC §3 Friend relationship, §4 Friends): send, list, accept, decline, cancel.
 * Every write locks both users (friendLockKeys) before it checks the pair and the caps, so two
 * users requesting each other at once end with exactly one pending request.
 */
@Injectable()
export class FriendRequestsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly uow: UnitOfWork,
    private readonly gate: FriendsGate,
    private readonly repo: FriendsRepository,
    private readonly identity: IdentityService,
  ) {}

  async send(game: GameContext, userId: string, targetUserId: string): Promise<SendFriendRequestResultDto> {
    const ctx = await this.gate.open(game);
    if (targetUserId === userId) throw ApiError.badRequest('targetSvcUserId must differ from userId');
    const { friends } = ctx.config;
    return this.uow.runBatched(async (tx) => {
      const m = tx.manager;
      // SPEC §1.4: sending a friend request creates both identities.
      const [from, to] = await resolveParties(this.identity, m, game.gameId, userId, targetUserId);
      await this.repo.lock(m, friendLockKeys(game.gameId, [from.id, to.id]));

      // The checks and the request in one statement: it makes the request when none of them refuses it.
      const caps = friends.requestsRequired ? { maxFriends: friends.maxFriends, maxPendingRequests: friends.maxPendingRequests } : null;
      const networkGameIds = ctx.readGameIds.length > 1 ? ctx.readGameIds : [];
      const checked = await this.repo.send(m, game.gameId, from, to, networkGameIds, caps).catch((err: unknown) => {
        if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
          throw ApiError.badRequest('a friend request between userId and targetSvcUserId is already pending');
        }
        throw err;
      });
      // Rule 1: a block either way is silent for both parties.
      if (checked.pairTypes.includes('blocked')) throw ApiError.notFound('user');
      if (checked.pairTypes.includes('friend') || checked.elsewhere) {
        throw ApiError.badRequest('targetSvcUserId is already a friend of userId');
      }
      if (checked.pairTypes.includes('request')) {
        throw ApiError.badRequest('a friend request between userId and targetSvcUserId is already pending');
      }
      // DECISIONS §27: caps reject on reaching them.
      if (checked.friendsA >= friends.maxFriends) {
        throw ApiError.badRequest(`userId already has maxFriends (${friends.maxFriends}) friends`);
      }
      if (checked.friendsB >= friends.maxFriends) {
        throw ApiError.badRequest(`targetSvcUserId already has maxFriends (${friends.maxFriends}) friends`);
      }

      if (!friends.requestsRequired) {
        const [mine] = await this.repo.insertFriendship(m, game.gameId, from, to);
        this.emitAccepted(tx, game, mine);
        // The game takes requests as accepted at once: the recipient hears of it; the sender has the answer.
        tx.notifyPlayer({ gameId: game.gameId, kind: 'friend.request.received', svcUserId: to.id, actorUserId: from.id, data: { requestId: null, status: 'accepted' } });
        return { status: 'auto-accepted', friendship: toFriendshipDto(mine) };
      }
      if (checked.requestsA >= friends.maxPendingRequests) {
        throw ApiError.badRequest(`userId already has maxPendingRequests (${friends.maxPendingRequests}) outbound requests`);
      }
      const { request } = checked;
      if (!request) throw new Error('a friend request passed every check but was not made');
      tx.emit({
        type: 'friend.request.sent',
        gameId: game.gameId,
        data: { actorSvcUserId: userId, targetSvcUserId: targetUserId },
      });
      tx.notifyPlayer({ gameId: game.gameId, kind: 'friend.request.received', svcUserId: to.id, actorUserId: from.id, data: { requestId: request.id, status: 'pending' } });
      return { status: 'pending', request: toRequestDto(request) };
    });
  }

  /** Complete sets, newest first; a user the game has never seen has none (DECISIONS §24). */
  async list(game: GameContext, userId: string, direction: 'in' | 'out' | 'both' = 'both'): Promise<FriendRequestsDto> {
    await this.gate.open(game);
    const svcUserId = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    if (!svcUserId) return { inbound: [], outbound: [] };
    const { inbound, outbound } = await this.repo.requests(this.readDb.ds.manager, game.gameId, svcUserId, direction);
    return { inbound: inbound.map(toRequestDto), outbound: outbound.map(toRequestDto) };
  }

  /**
   * The request row becomes the sender's friend row in place and the mirror row is added, in one
   * transaction; maxFriends is checked again for both parties (SPEC §8).
   */
  async accept(game: GameContext, requestId: string): Promise<AcceptFriendRequestResultDto> {
    const ctx = await this.gate.open(game);
    const { maxFriends } = ctx.config.friends;
    return this.uow.runBatched(async (tx) => {
      const m = tx.manager;
      const request = await this.seenRequest(tx, game, requestId);
      const { friendship, ...counts } = await this.repo.accept(m, game.gameId, request.userId, request.otherId, request.id, maxFriends);
      if (!counts.pending) throw ApiError.notFound('friend request');
      if (counts.friendsA >= maxFriends) {
        throw ApiError.badRequest(`the sender already has maxFriends (${maxFriends}) friends`);
      }
      if (counts.friendsB >= maxFriends) {
        throw ApiError.badRequest(`the recipient already has maxFriends (${maxFriends}) friends`);
      }
      if (!friendship) throw new Error('a friend request passed every check but was not accepted');
      this.emitAccepted(tx, game, friendship);
      // To the sender (the row's user), from the recipient who accepted.
      tx.notifyPlayer({ gameId: game.gameId, kind: 'friend.request.accepted', svcUserId: friendship.userId, actorUserId: friendship.otherId, data: { requestId: friendship.id } });
      return { status: 'accepted', friendship: toFriendshipDto(friendship) };
    });
  }

  async decline(game: GameContext, requestId: string): Promise<void> {
    await this.remove(game, requestId, 'friend.request.declined');
  }

  /** The sender withdraws the request (DELETE /v1/friend-requests/:id). */
  async cancel(game: GameContext, requestId: string): Promise<void> {
    await this.remove(game, requestId, 'friend.request.cancelled');
  }

  private async remove(game: GameContext, requestId: string, type: 'friend.request.declined' | 'friend.request.cancelled'): Promise<void> {
    await this.gate.open(game);
    await this.uow.runBatched(async (tx) => {
      const request = await this.seenRequest(tx, game, requestId);
      if (!(await this.repo.deleteRequest(tx.manager, request.id))) throw ApiError.notFound('friend request');
      tx.emit({
        type,
        gameId: game.gameId,
        data: { actorSvcUserId: request.userExternalId, targetSvcUserId: request.otherExternalId },
      });
    });
  }

  /**
   * A pending request of the calling game, with both users locked from the next statement on: that
   * statement (the accept's counts, or the delete) finds out whether it is still pending.
   */
  private async seenRequest(tx: Tx, game: GameContext, requestId: string): Promise<RelationshipRow> {
    const seen = isUuid(requestId) ? await this.repo.findRequest(tx.manager, game.gameId, requestId) : null;
    if (!seen) throw ApiError.notFound('friend request');
    await this.repo.lock(tx.manager, friendLockKeys(game.gameId, [seen.userId, seen.otherId]));
    return seen;
  }

  /** friend.request.accepted (SPEC §6): actor = original sender, target = accepter. */
  private emitAccepted(tx: Tx, game: GameContext, senderRow: RelationshipRow): void {
    tx.emit({
      type: 'friend.request.accepted',
      gameId: game.gameId,
      data: {
        actorSvcUserId: senderRow.userExternalId,
        targetSvcUserId: senderRow.otherExternalId,
        respondedAt: isoNN(senderRow.respondedAt!),
      },
    });
  }
}
