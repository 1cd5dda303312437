import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { UnitOfWork } from '../db/unit-of-work';
import { IdentityService } from '../identity/identity.service';
import type { CreateFriendTagDto, FriendshipDto, FriendTagDto, FriendTagListDto, UpdateFriendTagDto } from './dto/friends.dto';
import { friendLockKeys } from './friend-locks';
import type { FriendTagRow } from './friend-rows';
import { toFriendshipDto, toTagDto } from './friend-view';
import { FriendTagsRepository } from './friend-tags.repository';
import { FriendsGate } from './friends-gate';
import { FriendsRepository } from './friends.repository';
import { ReadSource } from '../db/replica/read-source';

/**
 * Friend tags (SPEC §4 Friends, rule 5): private labels of one owner in one game, attached only to
 * the owner's side of a friendship; `friends.tags.enabled=false` answers 404 on these routes.
 */
@Injectable()
export class FriendTagsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly ds: DataSource,
    private readonly uow: UnitOfWork,
    private readonly gate: FriendsGate,
    private readonly tags: FriendTagsRepository,
    private readonly friends: FriendsRepository,
    private readonly identity: IdentityService,
  ) {}

  async list(game: GameContext, userId: string): Promise<FriendTagListDto> {
    await this.gate.tags(game);
    const owner = await this.identity.find(this.readDb.ds.manager, game.gameId, userId);
    return { items: owner ? (await this.tags.list(this.readDb.ds.manager, game.gameId, owner)).map(toTagDto) : [] };
  }

  /**
   * Capped by friends.tags.maxPerUser; the owner's lock makes concurrent creates count one by one.
   * A user the game has never seen is anchored in the same transaction (DECISIONS §29), so a
   * refused create leaves no identity behind and concurrent first creates share one.
   */
  async create(game: GameContext, userId: string, dto: CreateFriendTagDto): Promise<FriendTagDto> {
    const ctx = await this.gate.tags(game);
    const max = ctx.config.friends.tags.maxPerUser;
    return this.uow.run(async (tx) => {
      const owner = await this.identity.resolveOrCreate(tx.manager, game.gameId, userId);
      await this.friends.lock(tx.manager, friendLockKeys(game.gameId, [owner]));
      if ((await this.tags.count(tx.manager, game.gameId, owner)) >= max) {
        throw ApiError.badRequest(`userId already has tags.maxPerUser (${max}) tags`);
      }
      return toTagDto(await this.tags.insert(tx.manager, game.gameId, owner, dto.name, dto.color ?? null));
    });
  }

  async update(game: GameContext, tagId: string, dto: UpdateFriendTagDto): Promise<FriendTagDto> {
    await this.gate.tags(game);
    if (dto.name === undefined && dto.color === undefined) throw ApiError.badRequest('body must hold name, color or both');
    return this.uow.run(async (tx) => {
      const tag = await this.find(tx.manager, game, tagId, true);
      const nameChanged = dto.name !== undefined && dto.name !== tag.name;
      const colorChanged = dto.color !== undefined && dto.color !== tag.color;
      if (!nameChanged && !colorChanged) return toTagDto(tag);
      return toTagDto(
        await this.tags.update(tx.manager, tag.id, { name: nameChanged ? dto.name : undefined, color: colorChanged ? dto.color : undefined }),
      );
    });
  }

  /** Deletes the tag and, by cascade, every attachment of it. */
  async delete(game: GameContext, tagId: string): Promise<void> {
    await this.gate.tags(game);
    await this.uow.run(async (tx) => {
      const tag = await this.find(tx.manager, game, tagId, true);
      await this.tags.delete(tx.manager, tag.id);
    });
  }

  /**
   * Replaces the owner's tag set on a friend (PUT .../friends/:otherUserId/tags); `[]` clears it.
   * Every id must be a tag of :userId in the calling game, else 400; the friendship must exist in
   * the calling game (tags attach to its owner-side row), else 404.
   */
  async setForFriend(game: GameContext, userId: string, otherUserId: string, tagIds: string[]): Promise<FriendshipDto> {
    await this.gate.tags(game);
    const m = this.ds.manager;
    const [owner, friend] = [await this.identity.find(m, game.gameId, userId), await this.identity.find(m, game.gameId, otherUserId)];
    const ids = [...new Set(tagIds)];
    const foreign = ids.find((id) => !isUuid(id));
    if (foreign !== undefined) throw ApiError.badRequest(`tagIds: ${foreign} is not a tag of userId in this game`);
    if (!owner || !friend) throw ApiError.notFound('friendship');
    return this.uow.run(async (tx) => {
      const row = await this.friends.friendRow(tx.manager, game.gameId, owner, friend, true);
      if (!row) throw ApiError.notFound('friendship');
      const owned = new Set(await this.tags.owned(tx.manager, game.gameId, owner, ids));
      const missing = ids.find((id) => !owned.has(id));
      if (missing !== undefined) throw ApiError.badRequest(`tagIds: ${missing} is not a tag of userId in this game`);
      await this.tags.replaceLinks(tx.manager, row.id, ids);
      return toFriendshipDto({ ...row, tagIds: await this.tags.tagIdsOf(tx.manager, row.id), friendExternalId: otherUserId }, userId);
    });
  }

  private async find(m: DataSource['manager'], game: GameContext, tagId: string, lock = false): Promise<FriendTagRow> {
    const tag = isUuid(tagId) ? await this.tags.find(m, game.gameId, tagId, lock) : null;
    if (!tag) throw ApiError.notFound('friend tag');
    return tag;
  }
}
