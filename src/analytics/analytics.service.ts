import { Injectable } from '@nestjs/common';
import { iso, isoNN } from '../common/time';
import { parseInstant } from '../common/validation/parse-instant';
import { GamesService } from '../games/games.service';
import { CHURN_BINS, DEFAULT_GROWTH_WINDOW_MS, growthWindow, parseTopN } from './analytics-window';
import { AnalyticsRepository, type TimeRange } from './analytics.repository';
import type {
  AnalyticsWindowQueryDto,
  GroupChurnDto,
  GroupGrowthDto,
  GroupGrowthQueryDto,
  MemberActivityDto,
  PermissionUsageDto,
  RoleDistributionDto,
} from './dto/analytics.dto';

/**
 * The operator analytics of one game (SPEC §4 Admin surface). The figures come out of SQL ready
 * made; this layer validates the query, resolves defaults and shapes the answer.
 */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly repo: AnalyticsRepository,
    private readonly games: GamesService,
  ) {}

  async groupChurn(gameId: string, q: AnalyticsWindowQueryDto): Promise<GroupChurnDto> {
    await this.games.requireGame(gameId);
    const range = parseRange(q);
    const row = await this.repo.session((m) => this.repo.churn(m, gameId, range));
    return {
      from: iso(range.from),
      to: iso(range.to),
      totalGroupsInWindow: row.groups,
      totalDeparturesInWindow: row.departures,
      bins: CHURN_BINS.map((b, i) => ({ label: b.label, minMs: b.minMs, maxMs: b.maxMs, count: row.bins[i] })),
    };
  }

  async groupGrowth(gameId: string, q: GroupGrowthQueryDto): Promise<GroupGrowthDto> {
    await this.games.requireGame(gameId);
    const to = parseInstant(q.to, 'to') ?? new Date();
    const from = parseInstant(q.from, 'from') ?? new Date(to.getTime() - DEFAULT_GROWTH_WINDOW_MS);
    const topN = parseTopN(q.topN);
    const window = growthWindow(from, to);
    const rows = await this.repo.session((m) => this.repo.growth(m, gameId, window, topN));
    return {
      from: isoNN(from),
      to: isoNN(to),
      bucketSizeMs: window.bucketSizeMs,
      buckets: window.boundaries.map((ms) => new Date(ms).toISOString()),
      series: rows.map((r) => ({
        key: r.groupId === null ? 'all-others' : `group:${r.groupId}`,
        name: r.name,
        groupId: r.groupId,
        data: r.data,
      })),
    };
  }

  async memberActivity(gameId: string, q: AnalyticsWindowQueryDto): Promise<MemberActivityDto> {
    await this.games.requireGame(gameId);
    const range = parseRange(q);
    const row = await this.repo.session((m) => this.repo.activity(m, gameId, range));
    return { from: iso(range.from), to: iso(range.to), totalEvents: row.total, cells: row.cells };
  }

  async roleDistribution(gameId: string): Promise<RoleDistributionDto> {
    await this.games.requireGame(gameId);
    return this.repo.session((m) => this.repo.roleDistribution(m, gameId));
  }

  async permissionUsage(gameId: string): Promise<PermissionUsageDto> {
    await this.games.requireGame(gameId);
    return this.repo.session((m) => this.repo.permissionUsage(m, gameId));
  }
}

function parseRange(q: AnalyticsWindowQueryDto): TimeRange {
  return { from: parseInstant(q.from, 'from'), to: parseInstant(q.to, 'to') };
}
