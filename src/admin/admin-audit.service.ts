import { isPseudonym } from '../users/pseudonym';
import { Inject, Injectable } from '@nestjs/common';
import { parseActions, parseBefore } from '../audit/audit-query';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage } from '../common/pagination/page';
import { parseInstant } from '../common/validation/parse-instant';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { GamesService } from '../games/games.service';
import { GroupLookup } from '../groups/group-lookup';
import { toAdminAuditItem } from './admin-view';
import { AdminRepository, type AuditBefore, type AuditSearch } from './admin.repository';
import type { AdminAuditListDto, AdminAuditPageDto, AdminAuditQueryDto, AdminAuditSearchQueryDto } from './dto/admin.dto';
import { ReadSource } from '../db/replica/read-source';

/** SPEC §8: the game-wide admin audit pages by 50, at most 100, whatever the server page cap. */
const SEARCH_DEFAULT_LIMIT = 50;
const SEARCH_CAP = 100;

/** The operator's audit views (SPEC §4 Admin surface): across games, per game, per group. */
@Injectable()
export class AdminAuditService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly repo: AdminRepository,
    private readonly games: GamesService,
    private readonly lookup: GroupLookup,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** The newest entries of every game; no cursor (SPEC §4 GET /v1/admin/audit). */
  async latest(q: AdminAuditQueryDto): Promise<AdminAuditListDto> {
    const limit = parsePageLimit(q.limit, 20, this.settings.maxPageSize);
    const rows = await this.repo.latestAudit(this.readDb.ds.manager, limit);
    return { items: rows.map(toAdminAuditItem) };
  }

  /** Every entry of a game, soft-deleted groups and game-wide actions included. */
  async forGame(gameId: string, q: AdminAuditSearchQueryDto): Promise<AdminAuditPageDto> {
    await this.games.requireGame(gameId);
    return this.search({ gameId }, 'game', q);
  }

  /** The entries of one live group; a soft-deleted group is 404 here (SPEC §4 Admin surface). */
  async forGroup(gameId: string, groupId: string, q: AdminAuditSearchQueryDto): Promise<AdminAuditPageDto> {
    await this.games.requireGame(gameId);
    const group = await this.lookup.liveHead(this.readDb.ds.manager, gameId, groupId);
    return this.search({ groupId: group.id }, 'group', q);
  }

  private async search(scope: AuditSearch['scope'], owner: string, q: AdminAuditSearchQueryDto): Promise<AdminAuditPageDto> {
    const m = this.readDb.ds.manager;
    const limit = parsePageLimit(q.limit, SEARCH_DEFAULT_LIMIT, SEARCH_CAP);
    const actions = parseActions(q.actions);
    const since = parseInstant(q.since, 'since');
    const parsed = parseBefore(q.before);
    let before: AuditBefore | undefined;
    if (parsed && 'id' in parsed) {
      const at = await this.repo.entryTime(m, scope, parsed.id);
      if (!at) throw ApiError.badRequest(`before names no audit entry of this ${owner}`);
      before = { createdAt: at.toISOString(), id: parsed.id };
    } else if (parsed) {
      before = { createdAt: parsed.at };
    }
    // Stored actor ids are internal uuids: any other text matches nothing (an exact match, not an error).
    if (q.actorUserId !== undefined && !isUuid(q.actorUserId) && !isPseudonym(q.actorUserId)) return { items: [], nextCursor: null };
    const rows = await this.repo.search(m, { scope, before, since, actions, actorUserId: q.actorUserId, targetId: q.targetId, limit });
    return toPage(rows, limit, toAdminAuditItem, (r) => r.id);
  }
}
