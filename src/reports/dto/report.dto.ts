import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MinLength } from 'class-validator';
import { ApiError } from '../../common/errors/api-error';
import { PageQueryDto } from '../../common/pagination/page';
import { findNulCharacter } from '../../common/validation/nul-characters';
import { ValidatedBy } from '../../common/validation/validation.pipe';
import { unknownKeysError } from '../../game-config/game-config';

export const SUBJECT_TYPES = ['user', 'group'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];
export const REPORT_CATEGORIES = ['cheating', 'harassment', 'offensive_name', 'spam', 'other'] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];
export const REPORT_STATUSES = ['open', 'resolved'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const RESOLUTIONS = ['dismissed', 'actioned'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const MESSAGE_MAX = 1000;
export const NOTE_MAX = 1000;

export class ReportSubjectDto {
  @ApiProperty({ enum: SUBJECT_TYPES, example: 'group' }) type!: SubjectType;
  @ApiProperty({ description: "a user's external id, or a group's id", example: '0190a5c8-3e1f-7b2a-9c4d-5e6f7a8b9c0d' }) id!: string;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function refuseUnknown(where: string, value: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length) throw unknownKeysError(where, unknown, known);
}

/**
 * Checked by hand: the subject is a nested object whose fields are named in the message by their
 * path (`subject.type`), and unknown keys at either level are refused rather than dropped.
 */
function parseCreateReport(raw: unknown): CreateReportDto {
  const body = raw === undefined || raw === null || raw === '' ? {} : raw;
  if (!isPlainObject(body)) throw ApiError.badRequest('request body must be a JSON object');
  const nul = findNulCharacter(body, '');
  if (nul !== null) throw ApiError.badRequest(`${nul || 'body'} must not contain the NUL character (\\u0000)`);
  refuseUnknown('body', body, ['reporterUserId', 'subject', 'category', 'message']);
  const { reporterUserId, subject, category, message } = body;
  if (!nonEmpty(reporterUserId)) throw ApiError.badRequest('reporterUserId must be a non-empty string');
  if (!isPlainObject(subject)) throw ApiError.badRequest('subject must be an object { type, id }');
  refuseUnknown('subject', subject, ['type', 'id']);
  if (!(SUBJECT_TYPES as readonly unknown[]).includes(subject.type)) throw ApiError.badRequest(`subject.type must be one of ${SUBJECT_TYPES.join(', ')}`);
  if (!nonEmpty(subject.id)) throw ApiError.badRequest('subject.id must be a non-empty string');
  if (!(REPORT_CATEGORIES as readonly unknown[]).includes(category)) throw ApiError.badRequest(`category must be one of ${REPORT_CATEGORIES.join(', ')}`);
  if (message !== undefined && message !== null && (typeof message !== 'string' || message.length > MESSAGE_MAX)) {
    throw ApiError.badRequest(`message must be a string of at most ${MESSAGE_MAX} characters, or null`);
  }
  return {
    reporterUserId,
    subject: { type: subject.type as SubjectType, id: subject.id },
    category: category as ReportCategory,
    message: (message as string | null | undefined) ?? null,
  };
}

/** EXTENSIONS X10: a player reports a user or a group of the game. */
@ValidatedBy(parseCreateReport)
export class CreateReportDto {
  @ApiProperty({ description: "the reporting player's external id" }) reporterUserId!: string;
  @ApiProperty({ type: ReportSubjectDto, description: 'a user other than the reporter, or a live group of the game' }) subject!: ReportSubjectDto;
  @ApiProperty({ enum: REPORT_CATEGORIES }) category!: ReportCategory;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MESSAGE_MAX }) message?: string | null;
}

export class ReportDto {
  @ApiProperty() id!: string;
  @ApiProperty({ type: String, nullable: true, description: "the reporter's external id; null for a report the service filed itself" })
  reporterUserId!: string | null;
  @ApiProperty({ type: ReportSubjectDto }) subject!: ReportSubjectDto;
  @ApiProperty({ enum: REPORT_CATEGORIES }) category!: ReportCategory;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ enum: REPORT_STATUSES }) status!: ReportStatus;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolvedAt!: string | null;
  // null is listed among the values: a nullable enum is checked against its list, null included.
  @ApiProperty({ enum: [...RESOLUTIONS, null], nullable: true, type: String }) resolution!: Resolution | null;
  @ApiProperty({ type: String, nullable: true, description: "the resolving operator's note" }) resolutionNote!: string | null;
}

function parseResolve(raw: unknown): ResolveReportDto {
  const body = raw === undefined || raw === null || raw === '' ? {} : raw;
  if (!isPlainObject(body)) throw ApiError.badRequest('request body must be a JSON object');
  const nul = findNulCharacter(body, '');
  if (nul !== null) throw ApiError.badRequest(`${nul || 'body'} must not contain the NUL character (\\u0000)`);
  refuseUnknown('body', body, ['resolution', 'note']);
  const { resolution, note } = body;
  if (!(RESOLUTIONS as readonly unknown[]).includes(resolution)) throw ApiError.badRequest(`resolution must be one of ${RESOLUTIONS.join(', ')}`);
  if (note !== undefined && note !== null && (typeof note !== 'string' || note.length > NOTE_MAX)) {
    throw ApiError.badRequest(`note must be a string of at most ${NOTE_MAX} characters, or null`);
  }
  return { resolution: resolution as Resolution, note: (note as string | null | undefined) ?? null };
}

@ValidatedBy(parseResolve)
export class ResolveReportDto {
  @ApiProperty({ enum: RESOLUTIONS }) resolution!: Resolution;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: NOTE_MAX }) note?: string | null;
}

export class ListReportsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: REPORT_STATUSES, description: 'default both' })
  @IsOptional()
  @IsIn(REPORT_STATUSES, { message: `status must be one of ${REPORT_STATUSES.join(', ')}` })
  status?: ReportStatus;

  @ApiPropertyOptional({ enum: SUBJECT_TYPES })
  @IsOptional()
  @IsIn(SUBJECT_TYPES, { message: `subjectType must be one of ${SUBJECT_TYPES.join(', ')}` })
  subjectType?: SubjectType;

  @ApiPropertyOptional({ enum: REPORT_CATEGORIES })
  @IsOptional()
  @IsIn(REPORT_CATEGORIES, { message: `category must be one of ${REPORT_CATEGORIES.join(', ')}` })
  category?: ReportCategory;

  @ApiPropertyOptional({ description: "only the reports on this subject (a user's external id or a group's id); needs subjectType" })
  @IsOptional()
  @IsString({ message: 'subjectId must be a non-empty string' })
  @MinLength(1, { message: 'subjectId must be a non-empty string' })
  subjectId?: string;
}

export class ListReportSubjectsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['open'], default: 'open', description: 'the queue is of open reports only' })
  @IsOptional()
  @IsIn(['open'], { message: 'status must be open: the queue tallies open reports only' })
  status?: 'open';
}

export class ReportedSubjectDto {
  @ApiProperty({ type: ReportSubjectDto }) subject!: ReportSubjectDto;
  @ApiProperty({ type: 'integer', description: 'open reports on the subject' }) openReports!: number;
  @ApiProperty({ type: 'integer', description: 'distinct reporters among them' }) reporters!: number;
  @ApiProperty({ enum: REPORT_CATEGORIES, isArray: true, description: 'the categories of the open reports, each once' }) categories!: ReportCategory[];
  @ApiProperty({ format: 'date-time', description: 'the oldest open report' }) firstAt!: string;
  @ApiProperty({ format: 'date-time', description: 'the newest open report' }) lastAt!: string;
}
