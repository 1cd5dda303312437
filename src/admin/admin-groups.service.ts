import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { parsePageLimit } from '../common/pagination/page-limit';
import { GamesService } from '../games/games.service';
import { GroupLookup } from '../groups/group-lookup';
import type { CountedPage } from './admin-rows';
import { toAdminGroup, toAdminMember } from './admin-view';
import { AdminGroupsRepository } from './admin-groups.repository';
import type {
  AdminGroupDto,
  AdminGroupListDto,
  AdminGroupsQueryDto,
  AdminMemberListDto,
  AdminMembersQueryDto,
} from './dto/admin-groups.dto';
import { ADMIN_LIST_CAP, containsPattern, parseOffset } from './list-query';
import { ReadSource } from '../db/replica/read-source';

/** SPEC §8: sorting by memberCount is refused past this many matching groups. */
export const MEMBER_COUNT_SORT_LIMIT = 500;

/** The operator's view of a game's groups and members (SPEC §4 Admin surface), offset-based. */
@Injectable()
export class AdminGroupsService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly repo: AdminGroupsRepository,
    private readonly games: GamesService,
    private readonly lookup: GroupLookup,
  ) {}

  async list(gameId: string, q: AdminGroupsQueryDto): Promise<AdminGroupListDto> {
    await this.games.requireGame(gameId);
    const limit = parsePageLimit(q.limit, 50, ADMIN_LIST_CAP);
    const offset = parseOffset(q.offset);
    const sort = q.sort ?? 'createdAt';
    const page = await this.repo.listGroups(this.readDb.ds.manager, {
      gameId,
      namePattern: q.q === undefined ? undefined : containsPattern(q.q),
      kind: q.kind,
      visibility: q.visibility,
      sort,
      order: q.order ?? 'desc',
      limit,
      offset,
      maxTotal: sort === 'memberCount' ? MEMBER_COUNT_SORT_LIMIT : undefined,
    });
    if (sort === 'memberCount' && page.total > MEMBER_COUNT_SORT_LIMIT) {
      throw ApiError.badRequest(
        `sort=memberCount is limited to ${MEMBER_COUNT_SORT_LIMIT} matching groups (${page.total} match): narrow the filters with q, kind or visibility`,
      );
    }
    return counted(page, offset, toAdminGroup);
  }

  async get(gameId: string, groupId: string): Promise<AdminGroupDto> {
    await this.games.requireGame(gameId);
    return toAdminGroup(await this.lookup.live(this.readDb.ds.manager, gameId, groupId));
  }

  async members(gameId: string, groupId: string, q: AdminMembersQueryDto): Promise<AdminMemberListDto> {
    await this.games.requireGame(gameId);
    const group = await this.lookup.live(this.readDb.ds.manager, gameId, groupId);
    const limit = parsePageLimit(q.limit, 50, ADMIN_LIST_CAP);
    const offset = parseOffset(q.offset);
    const status = q.status ?? 'active';
    const page = await this.repo.listMembers(this.readDb.ds.manager, {
      groupId: group.id,
      status: status === 'all' ? undefined : status,
      userPattern: q.q === undefined ? undefined : containsPattern(q.q),
      limit,
      offset,
    });
    return counted(page, offset, toAdminMember);
  }
}

function counted<R, T>(page: CountedPage<R>, offset: number, map: (r: R) => T): { items: T[]; total: number; hasMore: boolean } {
  const items = page.rows.map(map);
  return { items, total: page.total, hasMore: offset + items.length < page.total };
}
