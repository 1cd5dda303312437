import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page } from '../common/pagination/page';
import { iso } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork } from '../db/unit-of-work';
import type { FriendsContext } from '../game-config/game-config.service';
import { IdentityService } from '../identity/identity.service';
import type { FriendsListQueryDto, FriendshipDto, RelationshipDto } from './dto/friends.dto';
import { friendLockKeys } from './friend-locks';
import type { FriendListRow } from './friend-rows';
import { toFriendshipDto } from './friend-view';
import { FriendTagsRepository } from './friend-tags.repository';
import { FriendsGate } from './friends-gate';
import { FriendsRepository } from './friends.repository';
import { canViewList, effectiveVisibility } from './list-access';
import { relationshipState } from './relationship-state';

/** Friendships (SPEC §4 Friends): the keyset-paginated list with viewer rules, removal, relationship. */
@Injectable()
export class FriendshipsService {
  constructor(
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly gate: FriendsGate,
    private readonly repo: FriendsRepository,
    private readonly tags: FriendTagsRepository,
    private readonly identity: IdentityService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Newest friendships first, on (respondedAt, id). With `viewer`, the owner's visibility is
   * enforced and a refused viewer gets 404, never an empty page (rule 2); without it the caller is
   * an admin. Under network scope the list spans the network's games; `tagId` keeps to this game.
   */
  async list(game: GameContext, userId: string, q: FriendsListQueryDto): Promise<Page<FriendshipDto>> {
    const ctx = await this.gate.open(game);
    const m = this.ds.manager;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const scope = `friends:${game.gameId}:${userId}:${q.tagId ?? ''}`;
    const after = decodeKeyset(q.cursor, scope);
    const ownerId = await this.identity.find(m, game.gameId, userId);
    if (q.viewer !== undefined && q.viewer !== userId) await this.checkViewer(ctx, ownerId, q.viewer);
    if (q.tagId !== undefined) {
      if (!ctx.config.friends.tags.enabled) throw new ApiError('not_found', 'friend tags are disabled in this game');
      const tag = isUuid(q.tagId) ? await this.tags.find(m, game.gameId, q.tagId) : null;
      if (!tag || tag.userId !== ownerId) throw ApiError.badRequest('tagId is not a tag of this user in this game');
    }
    if (!ownerId) return { items: [], nextCursor: null };
    const rows = await this.repo.listFriends(m, {
      ownerId,
      gameIds: ctx.readGameIds,
      callingGameId: game.gameId,
      tagId: q.tagId,
      withTags: q.viewer === undefined || q.viewer === userId,
      after,
      limit,
    });
    return toPage(
      rows,
      limit,
      (r) => toFriendshipDto(r, userId),
      (r: FriendListRow) => encodeKeyset(scope, r.respondedAt!, r.id),
    );
  }

  /** Removes both rows of the friendship in the calling game, in one transaction. */
  async remove(game: GameContext, userId: string, otherUserId: string): Promise<void> {
    await this.gate.open(game);
    const m = this.ds.manager;
    const [a, b] = [await this.identity.find(m, game.gameId, userId), await this.identity.find(m, game.gameId, otherUserId)];
    if (!a || !b || a === b) throw ApiError.notFound('friendship');
    await this.uow.run(async (tx) => {
      await this.repo.lock(tx.manager, friendLockKeys(game.gameId, [a, b]));
      if (!(await this.repo.deleteFriendship(tx.manager, game.gameId, a, b))) throw ApiError.notFound('friendship');
      tx.emit({ type: 'friend.removed', gameId: game.gameId, data: { removedBySvcUserId: userId, otherSvcUserId: otherUserId } });
    });
  }

  /**
   * The state the viewer sees (rule 3), highest priority first: own block, their block,
   * friendship (over the read scope), pending request, none.
   */
  async relationship(game: GameContext, viewerUserId: string, otherUserId: string): Promise<RelationshipDto> {
    const ctx = await this.gate.open(game);
    if (viewerUserId === otherUserId) throw ApiError.badRequest('otherUserId must differ from viewerUserId');
    const m = this.ds.manager;
    const [me, other] = [await this.identity.find(m, game.gameId, viewerUserId), await this.identity.find(m, game.gameId, otherUserId)];
    if (!me || !other) return { state: 'none', since: null };
    const pair = await this.repo.pairRows(m, game.gameId, me, other);
    const at = (type: string, from: string) => pair.find((r) => r.type === type && r.userId === from)?.createdAt ?? null;
    const friendsSince =
      ctx.readGameIds.length > 1
        ? await this.repo.friendsSince(m, ctx.readGameIds, me, other)
        : (pair.find((r) => r.type === 'friend')?.respondedAt ?? null);
    const { state, since } = relationshipState({
      blockedByMeAt: at('blocked', me),
      blockedByThemAt: at('blocked', other),
      friendsSince,
      outgoingRequestAt: at('request', me),
      incomingRequestAt: at('request', other),
    });
    return { state, since: iso(since) };
  }

  /** 404 unless the viewer may read the owner's list (rule 2; unknown users read as strangers). */
  private async checkViewer(ctx: FriendsContext, ownerId: string | null, viewer: string): Promise<void> {
    const m = this.ds.manager;
    const viewerId = await this.identity.find(m, ctx.gameId, viewer);
    const { allowed, default: def } = ctx.config.friends.visibility;
    const visibility = effectiveVisibility(allowed, def, ownerId ? await this.repo.visibility(m, ctx.gameId, ownerId) : null);
    const known = ownerId !== null && viewerId !== null;
    const blocked = known && (await this.repo.blockedEitherWay(m, ctx.gameId, ownerId, viewerId));
    const isFriend = known && visibility === 'friends-only' && (await this.repo.friendsSince(m, ctx.readGameIds, ownerId, viewerId)) !== null;
    if (!canViewList(visibility, { isOwner: false, blocked, isFriend })) throw ApiError.notFound('friends list');
  }
}
