import { Inject, Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { parseActions, parseBefore } from './audit-query';
import { toAuditDto } from './audit-view';
import { GroupLookup } from '../groups/group-lookup';
import { AuditRepository, type AuditStart } from './audit.repository';
import type { AuditEntryDto, GroupAuditQueryDto } from './dto/audit.dto';
import { ReadSource } from '../db/replica/read-source';

/** The audit log of one group (SPEC §4 Audit log), newest first. */
@Injectable()
export class AuditService {
  constructor(
    private readonly readDb: ReadSource,
    private readonly lookup: GroupLookup,
    private readonly audit: AuditRepository,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async forGroup(game: GameContext, groupId: string, q: GroupAuditQueryDto): Promise<Page<AuditEntryDto>> {
    let query: { limit: number; actions?: string[]; start: AuditStart };
    try {
      const parsed = parseBefore(q.before);
      query = {
        limit: parsePageLimit(q.limit, 50, this.settings.maxPageSize),
        actions: parseActions(q.actions),
        start: !parsed ? {} : 'id' in parsed ? { beforeId: parsed.id } : { beforeAt: parsed.at },
      };
    } catch (err) {
      // A missing group is a 404 whatever else is wrong with the request.
      await this.lookup.liveHead(this.readDb.ds.manager, game.gameId, groupId);
      throw err;
    }
    if (!isUuid(groupId)) throw ApiError.notFound('group');
    const page = await this.audit.groupPage(this.readDb.ds, { gameId: game.gameId, groupId, ...query });
    if (!page.found) throw ApiError.notFound('group');
    if (!page.beforeFound) throw ApiError.badRequest('before names no audit entry of this group');
    const { rows } = page;
    const limit = query.limit;
    return toPage(rows, limit, toAuditDto, (r) => r.id);
  }
}
