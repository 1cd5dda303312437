import { Inject, Injectable } from '@nestjs/common';
import type { GameContext } from '../common/auth/game-context';
import type { ActingOperator } from '../common/auth/operator-roles';
import { ApiError } from '../common/errors/api-error';
import { isUuid } from '../common/ids';
import { scopeDigest } from '../common/pagination/cursor-codec';
import { INT4, integer, uuid } from '../common/pagination/cursor-fields';
import { cursorShape } from '../common/pagination/cursor-shape';
import { decodeKeyset, encodeKeyset } from '../common/pagination/keyset';
import { parsePageLimit } from '../common/pagination/page-limit';
import { toPage, type Page } from '../common/pagination/page';
import type { Settings } from '../config/settings';
import { SETTINGS } from '../config/settings.module';
import { ReadSource } from '../db/replica/read-source';
import { UnitOfWork } from '../db/unit-of-work';
import { IdentityService } from '../identity/identity.service';
import { recordOperatorAction } from '../operators/operator-audit';
import {
  type CreateReportDto,
  type ListReportsQueryDto,
  type ListReportSubjectsQueryDto,
  type ReportDto,
  type ReportedSubjectDto,
  type ResolveReportDto,
} from './dto/report.dto';
import { toReportDto, toReportedSubjectDto, type ReportRow, type SubjectTallyRow } from './report-row';
import { ReportsRepository } from './reports.repository';

/** EXTENSIONS X10: at most this many reports a reporter files in an hour. */
export const REPORTS_PER_HOUR = 20;

/** The queue's place: a tally's reporters and its row id (report_subjects_queue). */
const QUEUE_CURSOR = cursorShape(integer({ min: 0, max: INT4.max }), uuid);

/**
 * Players' reports (EXTENSIONS X10): filed through a game key, triaged and closed by operators.
 * Every change rewrites its subject's tally in the same transaction (ReportsRepository.retally),
 * which the operators' queue and the group search read.
 */
@Injectable()
export class ReportsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly readDb: ReadSource,
    private readonly repo: ReportsRepository,
    private readonly identity: IdentityService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Files a report, or answers the reporter's open one on the same subject (`created` false). The
   * users named are anchored first (taking their write locks, so an erasure of either runs wholly
   * before or after), then the reporter's lock settles the hourly limit across instances.
   */
  async file(game: Pick<GameContext, 'gameId'>, dto: CreateReportDto): Promise<{ report: ReportDto; created: boolean }> {
    const { gameId } = game;
    const { reporterUserId, subject } = dto;
    if (subject.type === 'user' && subject.id === reporterUserId) throw ApiError.badRequest('subject.id must not be the reporter: a player cannot report themselves');
    return this.uow.run(async (tx) => {
      const m = tx.manager;
      if (subject.type === 'group' && !(isUuid(subject.id) && (await this.repo.isLiveGroup(m, gameId, subject.id)))) throw ApiError.notFound('group');
      const reporterSvcId = await this.identity.resolveOrCreate(m, gameId, reporterUserId);
      if (subject.type === 'user') await this.identity.resolveOrCreate(m, gameId, subject.id);
      await this.repo.lockReporter(m, gameId, reporterUserId);
      const input = { gameId, reporterId: reporterUserId, subjectType: subject.type, subjectId: subject.id, category: dto.category, message: dto.message ?? null };
      const row = await this.repo.file(m, input, REPORTS_PER_HOUR);
      if (!row) {
        const open = await this.repo.findOpen(m, input);
        if (open) return { report: toReportDto(open), created: false };
        const wait = await this.repo.secondsUntilSlot(m, gameId, reporterUserId);
        throw new ApiError('rate_limited', `${reporterUserId} has filed ${REPORTS_PER_HOUR} reports in the last hour; retry in ${wait} s`, { 'retry-after': String(wait) });
      }
      await this.repo.retally(m, gameId, row.subjectType, row.subjectId);
      const report = toReportDto(row);
      tx.audit({
        gameId,
        groupId: null,
        actorUserId: reporterSvcId,
        action: 'report.created',
        targetId: subject.id,
        payload: { reportId: row.id, reporterUserId, subject: report.subject, category: row.category },
      });
      tx.emit({ type: 'report.created', gameId, data: { report } });
      return { report, created: true };
    });
  }

  /** Closes an open report (409 `report_closed` for a closed one), in both audits. */
  async resolve(gameId: string, id: string, dto: ResolveReportDto, by: ActingOperator): Promise<ReportDto> {
    if (!isUuid(id)) throw ApiError.notFound('report');
    return this.uow.run(async (tx) => {
      const m = tx.manager;
      const note = dto.note ?? null;
      const row = await this.repo.resolve(m, gameId, id, dto.resolution, note);
      if (!row) {
        const found = await this.repo.find(m, gameId, id);
        if (!found) throw ApiError.notFound('report');
        throw new ApiError('report_closed', `this report was already resolved: ${found.resolution}`);
      }
      await this.repo.retally(m, gameId, row.subjectType, row.subjectId);
      const report = toReportDto(row);
      tx.audit({ gameId, groupId: null, action: 'report.resolved', targetId: row.subjectId, payload: { reportId: row.id, resolution: dto.resolution, note } });
      tx.emit({ type: 'report.resolved', gameId, data: { report } });
      await recordOperatorAction(m, by, { action: 'report.resolved', gameId, targetId: row.id, details: { subject: report.subject, resolution: dto.resolution, note } });
      return report;
    });
  }

  async list(gameId: string, q: ListReportsQueryDto): Promise<Page<ReportDto>> {
    if (q.subjectId !== undefined && q.subjectType === undefined) throw ApiError.badRequest('subjectId needs subjectType (user or group)');
    const subject = q.subjectId === undefined ? '' : scopeDigest(q.subjectId);
    const scope = `reports:${gameId}:${q.status ?? ''}:${q.subjectType ?? ''}:${subject}:${q.category ?? ''}`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const after = decodeKeyset(q.cursor, scope);
    const rows = await this.repo.list(this.readDb.ds.manager, gameId, q, after, limit);
    return toPage(rows, limit, toReportDto, (r: ReportRow) => encodeKeyset(scope, r.createdAt, r.id));
  }

  /**
   * The queue: subjects with open reports, most reporters first, then by subject. A tally is a
   * moving key: a subject whose tally changes between two pages may be met twice or missed, as any
   * list ordered by a count; the cursor itself always stays valid.
   */
  async subjects(gameId: string, q: ListReportSubjectsQueryDto): Promise<Page<ReportedSubjectDto>> {
    const scope = `report-subjects:${gameId}:open`;
    const limit = parsePageLimit(q.limit, 50, this.settings.maxPageSize);
    const decoded = q.cursor === undefined ? undefined : QUEUE_CURSOR.decode(q.cursor, scope);
    const after = decoded && { reporters: decoded[0], id: decoded[1] };
    const rows = await this.repo.queue(this.readDb.ds.manager, gameId, after, limit);
    return toPage(rows, limit, toReportedSubjectDto, (s: SubjectTallyRow) => QUEUE_CURSOR.encode(scope, [s.reporters, s.id]));
  }
}
