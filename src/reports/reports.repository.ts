import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { uuidv7 } from '../common/ids';
import { sqlRows } from '../db/sql';
import type { ReportCategory, ReportStatus, Resolution, SubjectType } from './dto/report.dto';
import { REPORT_COLUMNS, type ReportRow, type SubjectTallyRow } from './report-row';

export interface ReportInput {
  gameId: string;
  reporterId: string;
  subjectType: SubjectType;
  subjectId: string;
  category: ReportCategory;
  message: string | null;
}

export interface ReportFilter {
  status?: ReportStatus;
  subjectType?: SubjectType;
  /** Only with subjectType. */
  subjectId?: string;
  category?: ReportCategory;
}

/** Where the queue's previous page ended: its order's key. */
export interface TallyAfter {
  reporters: number;
  id: string;
}

/** A reporter's reports in this window count against the limit. */
const WINDOW = `interval '1 hour'`;

/** A reporter's reports, found by the hashed index of reporter ids (reports_reporter). */
const byReporter = (reporterRef: string) => `r.game_id = $1 AND svc_external_key(r.reporter_id) = svc_external_key(${reporterRef}) AND r.reporter_id = ${reporterRef}`;

/**
 * The lock that serialises one reporter's reports in a game: the hourly count a report is checked
 * against must include every report of that reporter committed before it, on any instance.
 */
export function reporterLockKey(gameId: string, reporterId: string): bigint {
  return createHash('sha256').update(`svc:reports:${gameId}:${reporterId}`).digest().readBigInt64BE(0);
}

/** Reports (EXTENSIONS X10) and the per-subject tally of the open ones. */
@Injectable()
export class ReportsRepository {
  /** Held until the transaction ends (see {@link reporterLockKey}). */
  async lockReporter(m: EntityManager, gameId: string, reporterId: string): Promise<void> {
    await m.query('SELECT pg_advisory_xact_lock($1::bigint)', [reporterLockKey(gameId, reporterId).toString()]);
  }

  /**
   * Files the report unless the reporter already holds an open one on the subject (reports_open_once
   * settles that, whoever writes) or has filed `limit` within the hour: then nothing is written and
   * null comes back. Run under the reporter's lock, so the count cannot be overtaken.
   */
  async file(m: EntityManager, r: ReportInput, limit: number): Promise<ReportRow | null> {
    const [row] = await sqlRows<ReportRow>(
      m,
      `WITH recent AS (SELECT count(*)::int AS n FROM reports r WHERE ${byReporter('$2')} AND r.created_at > now() - ${WINDOW})
       INSERT INTO reports AS r (id, game_id, reporter_id, subject_type, subject_id, category, message)
       SELECT $3, $1, $2, $4, $5, $6, $7 FROM recent WHERE recent.n < $8
       ON CONFLICT (game_id, svc_external_key(reporter_id), subject_type, svc_external_key(subject_id)) WHERE status = 'open' DO NOTHING
       RETURNING ${REPORT_COLUMNS}`,
      [r.gameId, r.reporterId, uuidv7(), r.subjectType, r.subjectId, r.category, r.message, limit],
    );
    return row ?? null;
  }

  /**
   * Files the service's own `offensive_name` report (no reporter) on a group, unless one of the
   * service's is open on it already; null then. Callers hold the game's scan lock, so the check
   * cannot be overtaken (reports_open_once leaves reports without a reporter out).
   */
  async fileForNames(m: EntityManager, gameId: string, groupId: string, message: string): Promise<ReportRow | null> {
    const [row] = await sqlRows<ReportRow>(
      m,
      `INSERT INTO reports AS r (id, game_id, reporter_id, subject_type, subject_id, category, message)
       SELECT $3, $1, NULL, 'group', $2, 'offensive_name', $4
       WHERE NOT EXISTS (
         SELECT 1 FROM reports x WHERE x.game_id = $1 AND x.subject_type = 'group' AND svc_external_key(x.subject_id) = svc_external_key($2)
           AND x.subject_id = $2 AND x.reporter_id IS NULL AND x.status = 'open')
       RETURNING ${REPORT_COLUMNS}`,
      [gameId, groupId, uuidv7(), message],
    );
    return row ?? null;
  }

  /** The reporter's open report on the subject, if any (reports_open_once). */
  async findOpen(m: EntityManager, r: Pick<ReportInput, 'gameId' | 'reporterId' | 'subjectType' | 'subjectId'>): Promise<ReportRow | null> {
    const [row] = await sqlRows<ReportRow>(
      m,
      `SELECT ${REPORT_COLUMNS} FROM reports r
       WHERE ${byReporter('$2')} AND r.subject_type = $3 AND svc_external_key(r.subject_id) = svc_external_key($4) AND r.subject_id = $4 AND r.status = 'open'`,
      [r.gameId, r.reporterId, r.subjectType, r.subjectId],
    );
    return row ?? null;
  }

  /** Whole seconds (at least 1) until the oldest of the reporter's reports of the last hour leaves the window. */
  async secondsUntilSlot(m: EntityManager, gameId: string, reporterId: string): Promise<number> {
    const [row] = await sqlRows<{ wait: number | null }>(
      m,
      `SELECT ceil(extract(epoch FROM min(r.created_at) + ${WINDOW} - now()))::int AS wait
       FROM reports r WHERE ${byReporter('$2')} AND r.created_at > now() - ${WINDOW}`,
      [gameId, reporterId],
    );
    return Math.max(1, row.wait ?? 1);
  }

  async isLiveGroup(m: EntityManager, gameId: string, groupId: string): Promise<boolean> {
    const rows = await sqlRows(m, `SELECT 1 FROM groups g WHERE g.id = $1::uuid AND g.game_id = $2 AND g.soft_deleted_at IS NULL`, [groupId, gameId]);
    return rows.length > 0;
  }

  /**
   * Rewrites the subject's tally from its open reports. The first statement takes the tally row's
   * lock (making the row if need be); the second starts after it, so its snapshot holds every
   * report a transaction that held the lock before committed: two reports on one subject never
   * both count from a tally that misses the other.
   */
  async retally(m: EntityManager, gameId: string, subjectType: SubjectType, subjectId: string): Promise<void> {
    await m.query(
      `INSERT INTO report_subjects AS s (game_id, subject_type, subject_id) VALUES ($1, $2, $3)
       ON CONFLICT (game_id, subject_type, subject_key) DO UPDATE SET open_reports = s.open_reports`,
      [gameId, subjectType, subjectId],
    );
    await m.query(
      `UPDATE report_subjects s SET (open_reports, reporters, categories, first_at, last_at) = (
         SELECT count(*)::int, count(DISTINCT r.reporter_id)::int, coalesce(array_agg(DISTINCT r.category ORDER BY r.category), '{}'),
                min(r.created_at), max(r.created_at)
         FROM reports r
         WHERE r.game_id = s.game_id AND r.subject_type = s.subject_type AND svc_external_key(r.subject_id) = s.subject_key
           AND r.subject_id = s.subject_id AND r.status = 'open')
       WHERE s.game_id = $1 AND s.subject_type = $2 AND s.subject_key = svc_external_key($3)`,
      [gameId, subjectType, subjectId],
    );
  }

  /** Closes an open report of the game; null when there is none such (missing, another game's, or closed). */
  async resolve(m: EntityManager, gameId: string, id: string, resolution: Resolution, note: string | null): Promise<ReportRow | null> {
    const [row] = await sqlRows<ReportRow>(
      m,
      `UPDATE reports r SET status = 'resolved', resolved_at = now(), resolution = $3, resolution_note = $4
       WHERE r.id = $1 AND r.game_id = $2 AND r.status = 'open'
       RETURNING ${REPORT_COLUMNS}`,
      [id, gameId, resolution, note],
    );
    return row ?? null;
  }

  async find(m: EntityManager, gameId: string, id: string): Promise<ReportRow | null> {
    const [row] = await sqlRows<ReportRow>(m, `SELECT ${REPORT_COLUMNS} FROM reports r WHERE r.id = $1 AND r.game_id = $2`, [id, gameId]);
    return row ?? null;
  }

  /**
   * Newest first on reports_list, or reports_by_status with a status, or reports_subject for one
   * subject (its reports are few: those of equal time are sorted by id); the other filters ride along.
   */
  async list(m: EntityManager, gameId: string, f: ReportFilter, after: { at: string; id: string } | undefined, limit: number): Promise<ReportRow[]> {
    const params: unknown[] = [gameId, limit + 1];
    const p = (v: unknown) => `$${params.push(v)}`;
    const where = ['r.game_id = $1'];
    if (f.status) where.push(`r.status = ${p(f.status)}`);
    if (f.subjectType) where.push(`r.subject_type = ${p(f.subjectType)}`);
    if (f.subjectId !== undefined) {
      const ref = p(f.subjectId);
      where.push(`svc_external_key(r.subject_id) = svc_external_key(${ref}) AND r.subject_id = ${ref}`);
    }
    if (f.category) where.push(`r.category = ${p(f.category)}`);
    if (after) where.push(`(r.created_at, r.id) < (${p(after.at)}::timestamptz, ${p(after.id)}::uuid)`);
    return sqlRows<ReportRow>(
      m,
      `SELECT ${REPORT_COLUMNS} FROM reports r WHERE ${where.join(' AND ')} ORDER BY r.created_at DESC, r.id DESC LIMIT $2`,
      params,
    );
  }

  /** The subjects with open reports, most reporters first (report_subjects_queue). */
  async queue(m: EntityManager, gameId: string, after: TallyAfter | undefined, limit: number): Promise<SubjectTallyRow[]> {
    const keyset = after ? `AND (s.reporters, s.id) < ($3::int, $4::uuid)` : '';
    return sqlRows<SubjectTallyRow>(
      m,
      `SELECT s.subject_type AS "subjectType", s.subject_id AS "subjectId", s.id,
              s.open_reports AS "openReports", s.reporters, s.categories, s.first_at AS "firstAt", s.last_at AS "lastAt"
       FROM report_subjects s
       WHERE s.game_id = $1 AND s.open_reports > 0 ${keyset}
       ORDER BY s.reporters DESC, s.id DESC LIMIT $2`,
      after ? [gameId, limit + 1, after.reporters, after.id] : [gameId, limit + 1],
    );
  }
}
