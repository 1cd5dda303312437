import { Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { GameReads } from '../common/bulkhead/game-reads';
import { toPage, type Page } from '../common/pagination/page';
import type { GroupDto } from './dto/group.dto';
import type { SearchGroupsQueryDto } from './dto/group-search.dto';
import { cursorAfter, parseSearchQuery, withCursor } from './group-search-query';
import { GroupSearchRepository, type FoundGroup } from './group-search.repository';
import { toGroupDto } from './group-view';
import { ReadSource } from '../db/replica/read-source';

/**
 * Finding a group (EXTENSIONS X5): the game's groups a player may see (never secret, never
 * deleted) by words of their name, kind, tags, openness and size, in one of four orders. Serves
 * GET /v1/groups/search and its admin twin, which reads inside the path's game exactly as that
 * game's key would.
 */
@Injectable()
export class GroupSearchService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly repo: GroupSearchRepository,
    private readonly bulkheads: GameReads,
  ) {}

  async search(game: Pick<GameContext, 'gameId'>, dto: SearchGroupsQueryDto): Promise<Page<GroupDto>> {
    const parsed = parseSearchQuery(game.gameId, dto);
    // A search is one of the game's expensive reads: at most its share of the pool at once.
    const rows = await this.bulkheads.reads.run(game.gameId, () => this.repo.search(this.readDb.ds.manager, withCursor(parsed)));
    return toPage(rows, parsed.limit, toGroupDto, (g: FoundGroup) => cursorAfter(parsed, g));
  }
}
