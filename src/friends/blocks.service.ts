import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page, type PageQueryDto } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { UnitOfWork } from '../db/unit-of-work';
import { IdentityService } from '../identity/identity.service';
import type { BlockDto } from './dto/friends.dto';
import { friendLockKeys } from './friend-locks';
import type { RelationshipRow } from './friend-rows';
import { toBlockDto } from './friend-view';
import { FriendsGate } from './friends-gate';
import { FriendsRepository } from './friends.repository';
import { resolveParties } from './parties';
import { ReadSource } from '../db/replica/read-source';

/** Blocks (SPEC §3 Friend relationship, §4 Friends): block, unblock, the outbound list. */
@Injectable()
export class BlocksService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly gate: FriendsGate,
    private readonly repo: FriendsRepository,
    private readonly identity: IdentityService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Removes the friendship and pending requests both ways and adds the block; blocking again
   * changes nothing and fires nothing. `created` says whether this call added it.
   */
  async block(game: GameContext, userId: string, targetUserId: string): Promise<{ block: BlockDto; created: boolean }> {
    await this.gate.blocks(game);
    if (targetUserId === userId) throw ApiError.badRequest('targetSvcUserId must differ from userId');
    return this.uow.run(async (tx) => {
      const m = tx.manager;
      // SPEC §1.4: blocking creates the identities of both parties.
      const [by, other] = await resolveParties(this.identity, m, game.gameId, userId, targetUserId);
      await this.repo.lock(m, friendLockKeys(game.gameId, [by.id, other.id]));
      const { row, created } = await this.repo.block(m, game.gameId, by, other);
      if (created) {
        tx.emit({ type: 'friend.blocked', gameId: game.gameId, data: { bySvcUserId: userId, otherSvcUserId: targetUserId } });
      }
      return { block: toBlockDto(row), created };
    });
  }

  async unblock(game: GameContext, userId: string, otherUserId: string): Promise<void> {
    await this.gate.blocks(game);
    const m = this.ds.manager;
    const [by, other] = [await this.identity.find(m, game.gameId, userId), await this.identity.find(m, game.gameId, otherUserId)];
    if (!by || !other) throw ApiError.notFound('block');
    await this.uow.run(async (tx) => {
      await this.repo.lock(tx.manager, friendLockKeys(game.gameId, [by, other]));
      if (!(await this.repo.unblock(tx.manager, game.gameId, by, other))) throw ApiError.notFound('block');
      tx.emit({ type: 'friend.unblocked', gameId: game.gameId, data: { bySvcUserId: userId, otherSvcUserId: otherUserId } });
    });
  }

  /** Outbound blocks, newest first (SPEC §8: default 100, page cap). */
  async list(game: GameContext, userId: string, q: PageQueryDto): Promise<Page<BlockDto>> {
    await this.gate.blocks(game);
    const limit = parsePageLimit(q.limit, 100, this.settings.maxPageSize);
    const scope = `blocks:${game.gameId}:${scopeDigest(userId)}`;
    const after = decodeKeyset(q.cursor, scope);
    const svcUserId = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    if (!svcUserId) return { items: [], nextCursor: null };
    const rows = await this.repo.listBlocks(this.readDb.ds.manager, game.gameId, svcUserId, after, limit);
    return toPage(rows, limit, toBlockDto, (r: RelationshipRow) => encodeKeyset(scope, r.createdAt, r.id));
  }
}
