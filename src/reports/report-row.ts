import { iso, isoNN } from '../common/time';
import type { ReportCategory, ReportDto, ReportedSubjectDto, ReportStatus, Resolution, SubjectType } from './dto/report.dto';

/** A `reports` row as the repository reads it. */
export interface ReportRow {
  id: string;
  gameId: string;
  reporterId: string | null;
  subjectType: SubjectType;
  subjectId: string;
  category: ReportCategory;
  message: string | null;
  status: ReportStatus;
  createdAt: Date;
  resolvedAt: Date | null;
  resolution: Resolution | null;
  resolutionNote: string | null;
}

export const REPORT_COLUMNS = `r.id, r.game_id AS "gameId", r.reporter_id AS "reporterId", r.subject_type AS "subjectType",
  r.subject_id AS "subjectId", r.category, r.message, r.status, r.created_at AS "createdAt", r.resolved_at AS "resolvedAt",
  r.resolution, r.resolution_note AS "resolutionNote"`;

/** A `report_subjects` row of the queue; `id` is its place among equal tallies. */
export interface SubjectTallyRow {
  id: string;
  subjectType: SubjectType;
  subjectId: string;
  openReports: number;
  reporters: number;
  categories: ReportCategory[];
  firstAt: Date;
  lastAt: Date;
}

export const toReportDto = (r: ReportRow): ReportDto => ({
  id: r.id,
  reporterUserId: r.reporterId,
  subject: { type: r.subjectType, id: r.subjectId },
  category: r.category,
  message: r.message,
  status: r.status,
  createdAt: isoNN(r.createdAt),
  resolvedAt: iso(r.resolvedAt),
  resolution: r.resolution,
  resolutionNote: r.resolutionNote,
});

export const toReportedSubjectDto = (s: SubjectTallyRow): ReportedSubjectDto => ({
  subject: { type: s.subjectType, id: s.subjectId },
  openReports: s.openReports,
  reporters: s.reporters,
  categories: s.categories,
  firstAt: isoNN(s.firstAt),
  lastAt: isoNN(s.lastAt),
});
