import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GameContext } from '../common/auth/game-context';
import { ApiError } from '../common/errors/api-error';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { GroupLookup } from '../groups/group-lookup';
import { parseActions, parseBefore } from './audit-query';
import { toAuditDto } from './audit-view';
import { AuditRepository, type AuditBefore } from './audit.repository';
import type { AuditEntryDto, GroupAuditQueryDto } from './dto/audit.dto';

/** The audit log of one group (SPEC §4 Audit log), newest first. */
@Injectable()
export class AuditService {
  constructor(
    private readonly ds: DataSource,
    private readonly lookup: GroupLookup,
    private readonly audit: AuditRepository,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async forGroup(game: GameContext, groupId: string, q: GroupAuditQueryDto): Promise<Page<AuditEntryDto>> {
    const m = this.ds.manager;
    const group = await this.lookup.live(m, game.gameId, groupId);
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const actions = parseActions(q.actions);
    const parsed = parseBefore(q.before);
    let before: AuditBefore | undefined;
    if (parsed && 'id' in parsed) {
      const entry = await this.audit.findInGroup(m, group.id, parsed.id);
      if (!entry) throw ApiError.badRequest('before names no audit entry of this group');
      before = { createdAt: entry.createdAt.toISOString(), id: entry.id };
    } else if (parsed) {
      before = { createdAt: parsed.at };
    }
    const rows = await this.audit.listForGroup(m, group.id, { before, actions, limit });
    return toPage(rows, limit, toAuditDto, (r) => r.id);
  }
}
