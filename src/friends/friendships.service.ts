import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPageJson, type PageJson } from '../common/pagination/page';
import { iso } from '../common/time';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork } from '../db/unit-of-work';
import type { FriendsContext } from '../game-config/friends-context';
import { IdentityService } from '../identity/identity.service';
import type { FriendsListQueryDto, RelationshipDto } from './dto/friends.dto';
import { friendLockKeys } from './friend-locks';
import { FRIEND_ID_FIELD, FRIEND_RESPONDED_AT_FIELD, friendJson } from './friend-json';
import { FriendReadsRepository, type FriendsListResult } from './friend-reads.repository';
import { FriendsGate } from './friends-gate';
import { FriendsRepository } from './friends.repository';
import { canViewList, effectiveVisibility } from './list-access';
import { relationshipState } from './relationship-state';
import { ReadSource } from '../db/replica/read-source';

/** Friendships (SPEC §4 Friends): the keyset-paginated list with viewer rules, removal, relationship. */
@Injectable()
export class FriendshipsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly gate: FriendsGate,
    private readonly repo: FriendsRepository,
    private readonly reads: FriendReadsRepository,
    private readonly identity: IdentityService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Newest friendships first, on (respondedAt, id). With `viewer`, the owner's visibility is
   * enforced and a refused viewer gets 404, never an empty page (rule 2); without it the caller is
   * an admin. Under network scope the list spans the network's games; `tagId` keeps to this game.
   */
  async list(game: GameContext, userId: string, q: FriendsListQueryDto): Promise<PageJson> {
    const ctx = await this.gate.open(game);
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const scope = `friends:${game.gameId}:${scopeDigest(userId)}:${q.tagId ?? ''}`;
    const after = decodeKeyset(q.cursor, scope);
    const viewer = q.viewer !== undefined && q.viewer !== userId ? q.viewer : undefined;
    const page = await this.reads.listPage(this.readDb.ds, {
      callingGameId: game.gameId,
      readGameIds: ctx.readGameIds,
      ownerExternalId: userId,
      viewerExternalId: viewer,
      tagId: q.tagId === undefined ? undefined : isUuid(q.tagId) ? q.tagId : null,
      withTags: viewer === undefined,
      after,
      limit,
    });
    if (viewer !== undefined) this.checkViewer(ctx, page);
    if (q.tagId !== undefined) {
      if (!ctx.config.friends.tags.enabled) throw new ApiError('not_found', 'friend tags are disabled in this game');
      if (!page.tagOk) throw ApiError.badRequest('tagId is not a tag of this user in this game');
    }
    const ownerJson = JSON.stringify(userId);
    return toPageJson(
      page.rows,
      limit,
      (f) => friendJson(f, ownerJson),
      (f) => encodeKeyset(scope, new Date(Number(f[FRIEND_RESPONDED_AT_FIELD])), f[FRIEND_ID_FIELD]),
    );
  }

  /** Removes both rows of the friendship in the calling game, in one transaction. */
  async remove(game: GameContext, userId: string, otherUserId: string): Promise<void> {
    await this.gate.open(game);
    const m = this.ds.manager;
    const [a, b] = await this.identity.findTwo(m, game.gameId, userId, otherUserId);
    if (!a || !b || a === b) throw ApiError.notFound('friendship');
    await this.uow.runBatched(async (tx) => {
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
    const facts = await this.reads.relationshipFacts(this.readDb.ds, {
      callingGameId: game.gameId,
      readGameIds: ctx.readGameIds,
      viewerExternalId: viewerUserId,
      otherExternalId: otherUserId,
    });
    const { state, since } = relationshipState(facts);
    return { state, since: iso(since) };
  }

  /** 404 unless the viewer may read the owner's list (rule 2; unknown users read as strangers). */
  private checkViewer(ctx: FriendsContext, page: FriendsListResult): void {
    const { allowed, default: def } = ctx.config.friends.visibility;
    const visibility = effectiveVisibility(allowed, def, page.storedVisibility);
    if (!canViewList(visibility, { isOwner: false, blocked: page.blocked, isFriend: page.isFriend })) {
      throw ApiError.notFound('friends list');
    }
  }
}
