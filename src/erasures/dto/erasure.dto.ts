import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ApiError } from '../../common/errors/api-error';
import { isUuid } from '../../common/ids';
import { instant } from '../../common/pagination/cursor-fields';
import { PageQueryDto } from '../../common/pagination/page';
import { ValidatedBy } from '../../common/validation/validation.pipe';

/** At most this many entries in one apply: a year of erasures for a large studio, in one transaction. */
export const MAX_APPLY_ENTRIES = 100_000;

/** One recorded erasure: never the user's id, only its one-way hash. */
export class ErasureEntryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  gameId!: string;

  @ApiProperty({
    description: 'SHA-256 (hex) of `<gameId>:<userId>`, the erased external id; one-way, but an id from a small set can be guessed by trying them',
    example: '9f2d0c3e5b7a4c1d8e6f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d',
  })
  subjectHash!: string;

  @ApiProperty({ format: 'date-time' })
  erasedAt!: string;
}

/**
 * A ledger refused, and where: the route's 400 names the entry and field (`items.3.erasedAt`), the
 * operator command the line of the file.
 */
export class LedgerProblem extends ApiError {
  constructor(
    readonly path: readonly (string | number)[],
    readonly reason: string,
  ) {
    super('bad_request', path.length ? `${path.join('.')} ${reason}` : reason);
  }
}

const SUBJECT_HASH = /^[0-9a-f]{64}$/;
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An entry exactly as GET /v1/admin/erasures lists it, every field checked before any query (a
 * value PostgreSQL refuses would be a 500). `erasedAt` only in the list's own form, UTC to the
 * millisecond (the column's precision): another form of the same instant, or a finer one, would
 * be stored as something other than what was exported.
 */
export function parseErasureEntry(raw: unknown, at: readonly (string | number)[]): ErasureEntryDto {
  if (!isPlainObject(raw)) throw new LedgerProblem(at, 'must be a ledger entry (a JSON object)');
  const { id, gameId, subjectHash, erasedAt } = raw;
  if (typeof id !== 'string' || !isUuid(id)) throw new LedgerProblem([...at, 'id'], 'must be a lowercase UUID');
  if (typeof gameId !== 'string' || !isUuid(gameId)) throw new LedgerProblem([...at, 'gameId'], 'must be a lowercase UUID');
  if (typeof subjectHash !== 'string' || !SUBJECT_HASH.test(subjectHash)) throw new LedgerProblem([...at, 'subjectHash'], 'must be 64 lowercase hex characters');
  const when = instant.read(erasedAt);
  if (when === undefined) {
    throw new LedgerProblem([...at, 'erasedAt'], 'must be a timestamp as the ledger lists it: UTC with milliseconds, years 1-9999 (2026-01-01T00:00:00.000Z)');
  }
  return { id, gameId, subjectHash, erasedAt: when };
}

/** Checked by hand: class-validator takes an array where an entry belongs, and is slow over 100,000 entries. */
export function parseApplyErasures(raw: unknown): ApplyErasuresDto {
  const body = raw === undefined || raw === null || raw === '' ? {} : raw;
  if (!isPlainObject(body)) throw new LedgerProblem([], 'request body must be a JSON object');
  const { items } = body;
  if (!Array.isArray(items)) throw new LedgerProblem(['items'], 'must be an array of ledger entries');
  if (items.length > MAX_APPLY_ENTRIES) throw new LedgerProblem(['items'], `must hold at most ${MAX_APPLY_ENTRIES} entries`);
  return { items: items.map((item, i) => parseErasureEntry(item, ['items', i])) };
}

export class ListErasuresQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'only erasures at or after this instant (ISO 8601)' })
  @IsOptional()
  @IsString()
  since?: string;
}

@ValidatedBy(parseApplyErasures)
export class ApplyErasuresDto {
  @ApiProperty({ type: [ErasureEntryDto], description: `ledger entries as GET /v1/admin/erasures lists them; at most ${MAX_APPLY_ENTRIES}` })
  items!: ErasureEntryDto[];
}

export class ApplyErasuresResultDto {
  @ApiProperty({ description: 'entries applied (every entry of the request); the ledger gains those it lacked', example: 12 })
  applied!: number;

  @ApiProperty({ description: 'users erased again: restored from a backup, or new since under an erased id', example: 1 })
  erased!: number;
}
